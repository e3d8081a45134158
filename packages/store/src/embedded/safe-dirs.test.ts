import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareDataDir } from "./embedded-postgres";
import { ensureCopiedBinaries, openNoFollow, prepareRelocationRoot, UntrustedPathError, writeSecretFile } from "./safe-dirs";

// Security review H2: a root process relocating the embedded Postgres must refuse anything another
// user could have planted. The base directory is a temp dir (never the real /var/tmp, whose
// runifold-* directories other processes may be using); /tmp itself is root-owned and sticky.
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const KEY = "0123456789ab";

describe.skipIf(!isRoot)("relocation root checks (as root)", () => {
  let base: string;
  let victim: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), "rf-reloc-"));
    chmodSync(base, 0o755);
    victim = path.join(base, "victim");
    mkdirSync(victim, { mode: 0o755 });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("creates the root itself (root-owned, 0755) and re-uses it on the next start", () => {
    const root = prepareRelocationRoot(base, KEY);
    expect(root).toBe(path.join(base, `runifold-${KEY}`));
    const st = lstatSync(root);
    expect([st.uid, st.mode & 0o7777]).toEqual([0, 0o755]);
    expect(prepareRelocationRoot(base, KEY)).toBe(root);
  });

  it("refuses a pre-created root owned by another uid", () => {
    const planted = path.join(base, `runifold-${KEY}`);
    mkdirSync(planted, { mode: 0o755 });
    chownSync(planted, NOBODY, NOBODY);
    expect(() => prepareRelocationRoot(base, KEY)).toThrow(/owned by uid 65534/);
  });

  it("refuses a root-owned but world-writable root", () => {
    const planted = path.join(base, `runifold-${KEY}`);
    mkdirSync(planted);
    chmodSync(planted, 0o777);
    expect(() => prepareRelocationRoot(base, KEY)).toThrow(/lets other users write/);
    expect(statSync(planted).mode & 0o777).toBe(0o777); // refused, not "fixed" after the fact
  });

  it("refuses a symlink in place of the root and never changes its target", () => {
    symlinkSync(victim, path.join(base, `runifold-${KEY}`));
    expect(() => prepareRelocationRoot(base, KEY)).toThrow(UntrustedPathError);
    expect(() => prepareRelocationRoot(base, KEY)).toThrow(/symlink/);
    expect(statSync(victim).mode & 0o777).toBe(0o755);
  });

  it("refuses a base below a directory other users may write without the sticky bit", () => {
    const open = path.join(base, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => prepareRelocationRoot(open, KEY)).toThrow(/writable by other users/);
  });

  it("refuses a base below a directory owned by another user", () => {
    const theirs = path.join(base, "theirs");
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, NOBODY, NOBODY);
    expect(() => prepareRelocationRoot(theirs, KEY)).toThrow(/owned by uid 65534/);
  });

  it("never chowns through a symlink planted as the data directory", () => {
    const root = prepareRelocationRoot(base, KEY);
    symlinkSync(victim, path.join(root, "pg"));
    expect(() => prepareDataDir(path.join(root, "pg"), { uid: NOBODY, gid: NOBODY })).toThrow(/symlink/);
    const st = statSync(victim);
    expect([st.uid, st.mode & 0o777]).toEqual([0, 0o755]);
  });

  it("hands a fresh data directory to the server user, mode 0700", () => {
    const root = prepareRelocationRoot(base, KEY);
    prepareDataDir(path.join(root, "pg"), { uid: NOBODY, gid: NOBODY });
    const st = lstatSync(path.join(root, "pg"));
    expect([st.uid, st.mode & 0o7777]).toEqual([NOBODY, 0o700]);
    prepareDataDir(path.join(root, "pg"), { uid: NOBODY, gid: NOBODY }); // a restart re-uses it
  });

  it("copies the binaries when absent and refuses a copy someone else planted", () => {
    const packaged = path.join(base, "packaged");
    mkdirSync(path.join(packaged, "bin"), { recursive: true });
    writeFileSync(path.join(packaged, "bin", "postgres"), "#!/bin/sh\n", { mode: 0o755 });
    const root = prepareRelocationRoot(base, KEY);
    ensureCopiedBinaries(packaged, path.join(root, "native"));
    expect(lstatSync(path.join(root, "native", "bin", "postgres")).isFile()).toBe(true);

    chownSync(path.join(root, "native", "bin", "postgres"), NOBODY, NOBODY);
    expect(() => ensureCopiedBinaries(packaged, path.join(root, "native"))).toThrow(/owned by uid 65534/);
    chownSync(path.join(root, "native", "bin", "postgres"), 0, 0);
    chmodSync(path.join(root, "native", "bin"), 0o777);
    expect(() => ensureCopiedBinaries(packaged, path.join(root, "native"))).toThrow(/writable by other users/);
  });

  it("writes the initdb password file exclusively, 0600, owned by the server user", () => {
    const root = prepareRelocationRoot(base, KEY);
    const file = writeSecretFile(root, "secret", { uid: NOBODY, gid: NOBODY });
    const st = lstatSync(file);
    expect([st.isFile(), st.uid, st.mode & 0o777]).toEqual([true, NOBODY, 0o600]);
    expect(path.basename(file)).toMatch(/^\.pwfile-[0-9a-f]{24}$/); // not guessable from the pid
  });
});

describe("files of the data root", () => {
  it("never writes, appends to or reads through a symlink planted in place of a file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rf-files-"));
    try {
      const victim = path.join(dir, "victim");
      writeFileSync(victim, "precious");
      symlinkSync(victim, path.join(dir, "pg.embedded.json"));
      for (const mode of ["write", "append", "read"] as const)
        expect(() => openNoFollow(path.join(dir, "pg.embedded.json"), mode)).toThrow(/symlink/);
      symlinkSync(path.join(dir, "absent"), path.join(dir, "pg.password")); // dangling: O_EXCL refuses it too
      expect(() => openNoFollow(path.join(dir, "pg.password"), "create")).toThrow(/EEXIST/);
      expect(readFileSync(victim, "utf8")).toBe("precious");
      expect(() => lstatSync(path.join(dir, "absent"))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
