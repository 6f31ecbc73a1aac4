// What the echo agent as shipped (apps/echo-agent) does with a message, for the SDK servers'
// executors to do the same work when the bench compares them with it (BENCH_ECHO_AS_SHIPPED=1):
// a working status with a message, then the text cut at word boundaries into up to three
// chunks of one artifact, then the final status.
export const WORKING_TEXT = 'Echoing your message…';

/** The text cut as the echo agent cuts it: up to three pieces whose concatenation is the text. */
export function echoChunks(text) {
  const words = text.split(/(?<=\s)(?=\S)/);
  const size = Math.ceil(words.length / 3);
  const pieces = [];
  for (let i = 0; i < words.length; i += size) pieces.push(words.slice(i, i + size).join(''));
  return pieces;
}

export const echoAsShipped = process.env.BENCH_ECHO_AS_SHIPPED === '1';
