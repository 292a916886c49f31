export {
  createPercentileSketch,
  type PercentileSketch,
  type PercentileSketchOptions,
} from './create-percentile-sketch.js';
export {
  createStatsAggregator,
  type LatencySummary,
  type ModelTotals,
  type StatsAggregator,
  type StatsAggregatorOptions,
  type TraceStats,
} from './create-stats-aggregator.js';
export type { InvalidFigure } from './read-figures.js';
