// Which content an agent takes: the media types its card lists as input modes (the default ones
// and every skill's). A client's part of another type is refused with -32005, on every version,
// before anything is stored: the agent said it cannot read it.
import { A2AError, ErrorCode } from 'a2a-types/model';
import type { Message, Part } from '../model/task.js';

/** The media type of a part as the input modes name it. */
export function mediaTypeOf(part: Part): string {
  if (part.type === 'text') return 'text/plain';
  if (part.type === 'data') return 'application/json';
  // A file that does not say what it is is just bytes.
  return typeof part.file?.mimeType === 'string' && part.file.mimeType !== '' ? part.file.mimeType : 'application/octet-stream';
}

/**
 * Mode names that are not media types, as cards of the first versions wrote them (the reference
 * samples say `"text"`), with the media types they stand for.
 */
const MODE_ALIASES: Readonly<Record<string, string>> = { text: 'text/plain', json: 'application/json', data: 'application/json' };

/** `type/subtype` in lower case, without parameters (`; charset=utf-8`). */
function essence(mediaType: string): string {
  const bare = mediaType.split(';', 1)[0]!.trim().toLowerCase();
  return MODE_ALIASES[bare] ?? bare;
}

/**
 * Decides whether a media type is among `modes`: exactly (case and parameters aside), by a
 * `type/*` wildcard, or by `*` / `*\/*` (anything).
 */
export function acceptsMediaType(modes: readonly string[]): (mediaType: string) => boolean {
  const exact = new Set<string>();
  const types = new Set<string>();
  let anything = false;
  for (const mode of modes) {
    const name = essence(mode);
    if (name === '*' || name === '*/*') anything = true;
    else if (name.endsWith('/*')) types.add(name.slice(0, -2));
    else exact.add(name);
  }
  return (mediaType) => {
    if (anything) return true;
    const name = essence(mediaType);
    return exact.has(name) || types.has(name.split('/', 1)[0]!);
  };
}

/** -32005 for the message's parts whose media type `accepts` refuses, or undefined when it takes them all. */
export function unsupportedContent(
  message: Message,
  accepts: (mediaType: string) => boolean,
  acceptedModes: readonly string[],
): A2AError | undefined {
  const refused: { path: string; mediaType: string }[] = [];
  message.parts.forEach((part, i) => {
    const mediaType = mediaTypeOf(part);
    if (!accepts(mediaType)) refused.push({ path: `/message/parts/${i}`, mediaType });
  });
  if (refused.length === 0) return undefined;
  const sent = [...new Set(refused.map((part) => part.mediaType))].join(', ');
  return new A2AError(ErrorCode.ContentTypeNotSupported, 'Incompatible content types: content type not supported', {
    reason: `this agent does not take ${sent}; it takes ${acceptedModes.join(', ')} (its card's input modes)`,
    parts: refused,
    acceptedInputModes: acceptedModes,
  });
}
