export type LogFields = Record<string, unknown>;

export type Logger = {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
};

const LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LEVELS)[number];

/** One JSON line per entry on stderr. Callers never pass secrets; see lib/auth for redaction. */
export function createLogger(component: string, level: LogLevel = "info"): Logger {
  const threshold = LEVELS.indexOf(level);
  const write = (lvl: LogLevel, message: string, fields?: LogFields) => {
    if (LEVELS.indexOf(lvl) < threshold) return;
    const entry = { t: new Date().toISOString(), level: lvl, component, message, ...fields };
    process.stderr.write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
