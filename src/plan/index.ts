export * from './windows.js';
export * from './planner.js';
