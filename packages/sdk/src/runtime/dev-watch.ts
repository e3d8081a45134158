import { type FSWatcher, watch } from "node:fs";
import path from "node:path";

/**
 * Watches a set of files for the dev loop: the workflows module and the local files it imported
 * (reported by the loader, dev-child.ts), wherever they are, and nothing else — a log or a build
 * output written beside them never triggers a reload. Node's own fs.watch, no dependency: one
 * non-recursive watcher per folder, matched by file name, because an editor that saves by writing
 * a temporary file and renaming it over the original replaces the inode a per-file watcher holds.
 * (Recursive fs.watch on a whole folder would also see node_modules and build outputs; a watcher
 * package such as chokidar adds polling fallbacks a local dev loop does not need.)
 * Changes within `settleMs` of each other are one change (a save is often several events).
 */
export class DevWatch {
  private readonly folders = new Map<string, { watcher: FSWatcher; names: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;
  private changed: string | undefined;
  private closed = false;

  constructor(
    private readonly onChange: (file: string) => void,
    private readonly settleMs = 150,
  ) {}

  /** Adds files to the watched set (it only grows: a file dropped from the imports costs nothing). */
  add(files: Iterable<string>): void {
    for (const file of files) {
      const folder = path.dirname(file);
      let entry = this.folders.get(folder);
      if (!entry) {
        if (this.closed) return;
        let watcher: FSWatcher;
        try {
          watcher = watch(folder, { persistent: true }, (_event, name) => this.event(folder, name));
        } catch {
          continue; // a folder that vanished: nothing there to reload for
        }
        watcher.on("error", () => {}); // the folder was removed: its files are gone, and so is the need
        entry = { watcher, names: new Set() };
        this.folders.set(folder, entry);
      }
      entry.names.add(path.basename(file));
    }
  }

  /** The files watched, for the startup line. */
  files(): string[] {
    return [...this.folders].flatMap(([folder, { names }]) => [...names].map((name) => path.join(folder, name)));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const { watcher } of this.folders.values()) watcher.close();
    this.folders.clear();
  }

  private event(folder: string, name: string | Buffer | null): void {
    const names = this.folders.get(folder)?.names;
    // Some platforms give no name: then any change in a watched folder counts.
    if (name !== null && !names?.has(String(name))) return;
    this.changed ??= name === null ? folder : path.join(folder, String(name));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const changed = this.changed as string;
      this.changed = undefined;
      if (!this.closed) this.onChange(changed);
    }, this.settleMs);
  }
}
