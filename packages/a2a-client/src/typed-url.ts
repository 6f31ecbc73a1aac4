// URLs as a person types them. A module of its own, without imports: the command line reads every
// URL it is given with these before it loads anything heavy.

/** Whether a URL as typed names its scheme (`https://…`), where `host:port` alone does not. */
export const namesScheme = (typed: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(typed);

/** A URL as typed, `host:port` alone meaning http:// (`127.0.0.1:41241`, `localhost:10000`). */
export const withHttpScheme = (typed: string): string => (namesScheme(typed) ? typed : `http://${typed}`);
