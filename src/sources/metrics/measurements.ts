import type { MeasurementSchema } from '../../points.js';

// Placeholder: the metrics source defines its measurements here.
export const metricsMeasurements: MeasurementSchema[] = [];
