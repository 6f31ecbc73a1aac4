// The one median every bench script reports: of an even count, the upper of the two middle values,
// so that a figure is always one that was measured.
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
