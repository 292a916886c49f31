export { createFileOutput, type FileOutput, writeFailure } from './create-file-output.js';
export { formatProblem, type Problem } from './format-problem.js';
export { createProgressBar, type ProgressBar, type ProgressBarOptions } from './progress-bar.js';
export { createPalette, type Palette, useColor } from './use-color.js';
export { writeText } from './write-text.js';
