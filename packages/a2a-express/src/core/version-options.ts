// What every version's options have in common: `false` to leave it out, or where it is served and
// fields for its card. A version reads its own option with these (versions/<v>/index.ts).

/** A version's option as a user writes it: on or off, or its path and card fields. */
export type VersionOption<C> = boolean | { path?: string; card?: C };

/** A version's option with its defaults, when it is served. */
export interface VersionPlacement<C> {
  readonly path: string;
  readonly card: C;
}

/**
 * Reads `options.<name>`: undefined when it is `false`, else where the version is served (its
 * `path`, `defaultPath` unless given) and its card fields. Throws a TypeError for a path that is
 * not one below the mount.
 */
export function versionPlacement<C extends object>(
  option: VersionOption<C> | undefined,
  name: string,
  defaultPath: string,
): VersionPlacement<C> | undefined {
  if (option === false) return undefined;
  const { path = defaultPath, card = {} as C } = option === true || option === undefined ? {} : option;
  if (typeof path !== 'string' || !/^(\/[\w.~-]+)+$/.test(path)) {
    throw new TypeError(
      `a2aRouter: options.${name}.path must be a path below the mount such as '${defaultPath}', got ${JSON.stringify(path)}`,
    );
  }
  return { path, card };
}

/**
 * The media types a version's card fields add: their default input modes, and their skills'.
 * Read before the card is checked (its version's schema words what is wrong): what is not a
 * list adds nothing.
 */
export function inputModesOfCard(card: { defaultInputModes?: unknown; skills?: unknown }): string[] {
  const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const skillModes = listOf(card.skills).flatMap((skill) => listOf((skill as { inputModes?: unknown } | null)?.inputModes));
  return [...listOf(card.defaultInputModes), ...skillModes].filter((mode): mode is string => typeof mode === 'string');
}

/** `url` joined with `path` below it (`'/v0.3'`): where a version's endpoint is, for a mount at `mountUrl`. */
export function urlBelow(mountUrl: string, path: string): string {
  return new URL(path.slice(1), mountUrl.endsWith('/') ? mountUrl : `${mountUrl}/`).href;
}
