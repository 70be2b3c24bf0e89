import type { MeasurementSchema } from '../../points.js';

// Placeholder: the statistic source defines its measurements here.
export const statisticMeasurements: MeasurementSchema[] = [];
