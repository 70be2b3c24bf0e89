import type { MeasurementSchema } from '../../points.js';

// Placeholder: the streamstat source defines its measurements here.
export const streamstatMeasurements: MeasurementSchema[] = [];
