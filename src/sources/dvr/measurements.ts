import type { MeasurementSchema } from '../../points.js';

// Placeholder: the dvr source defines its measurements here.
export const dvrMeasurements: MeasurementSchema[] = [];
