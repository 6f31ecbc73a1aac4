import { A2AError, ERROR_MESSAGES, ErrorCode, isFinalState, isTerminalState } from '../src/index.js';

describe('errors', () => {
  test('every code has the message the specification gives it', () => {
    expect(ERROR_MESSAGES[ErrorCode.TaskNotFound]).toBe('Task not found');
    expect(ERROR_MESSAGES[ErrorCode.InvalidTaskState]).toBe('Invalid task state for operation');
    expect(Object.keys(ERROR_MESSAGES)).toHaveLength(17);
    expect(ERROR_MESSAGES[ErrorCode.ExtensionSupportRequired]).toBe('Extension support required');
  });

  test('an A2AError serializes to a JSON-RPC error object, with data only when given', () => {
    expect(A2AError.taskNotFound('t1').toJSON()).toEqual({ code: -32001, message: 'Task not found', data: { taskId: 't1' } });
    expect(A2AError.internalError().toJSON()).toEqual({ code: -32603, message: 'Internal server error' });
    expect(new A2AError(ErrorCode.RateLimitExceeded, 'Slow down').toJSON()).toEqual({ code: -32010, message: 'Slow down' });
  });

  test('terminal and final states', () => {
    expect(['completed', 'canceled', 'failed', 'unknown'].every((s) => isTerminalState(s as never))).toBe(true);
    expect(isTerminalState('input-required')).toBe(false);
    expect(isFinalState('input-required')).toBe(true);
    expect(isFinalState('working')).toBe(false);
  });
});
