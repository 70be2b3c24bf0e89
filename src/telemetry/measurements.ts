import type { MeasurementSchema } from '../points.js';

// Placeholder: self-monitoring measurement (cdn_collector).
export const collectorMeasurements: MeasurementSchema[] = [];
