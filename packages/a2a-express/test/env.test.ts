import { taskLimitsFromEnv } from '../src/env.js';

describe('A2A_MAX_TASK_BYTES', () => {
  test('unset leaves the router its default; a number of bytes becomes maxTaskBytes', () => {
    expect(taskLimitsFromEnv({})).toEqual({});
    expect(taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: ' ' })).toEqual({});
    expect(taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '4194304' })).toEqual({ maxTaskBytes: 4 * 1024 * 1024 });
  });

  test('a value that is not a size a task could hold is refused at start, naming the variable', () => {
    expect(() => taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '16MB' })).toThrow(/A2A_MAX_TASK_BYTES must be a non-negative integer/);
    expect(() => taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '100' })).toThrow(/A2A_MAX_TASK_BYTES must be at least 1024, got 100/);
  });
});
