import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  cpSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  writeSync,
} from "node:fs";
import path from "node:path";

/**
 * Directories the embedded Postgres trusts while running as root (security review H2). The
 * relocation root under /var/tmp must keep its name across restarts (it holds the cluster), so a
 * name alone proves nothing: whoever created it first owns it. Everything here therefore checks
 * what it finds instead of trusting a path: ancestors are root-owned and either private or sticky,
 * our directories are real directories (never symlinks) that we own and nobody else can write, and
 * ownership/mode changes go through a descriptor opened with O_NOFOLLOW, so a symlink planted in
 * place of a directory is refused rather than followed.
 */
export type PgUser = { uid: number; gid: number } | undefined;

export class UntrustedPathError extends Error {
  override name = "UntrustedPathError";
}

const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;
const myUid = () => process.getuid?.() ?? 0;

function refuse(target: string, why: string): never {
  throw new UntrustedPathError(
    `refusing to use ${target} for the embedded PostgreSQL: ${why}. Remove it (it was not created by this process's user), or set DATABASE_URL`,
  );
}

/**
 * `dir` and every directory above it: real directories owned by root (or us), writable by nobody
 * else unless sticky (like /var/tmp itself), so no other user can rename or replace what we create
 * inside. Returns the resolved path (system symlinks such as macOS's /var are resolved first).
 */
export function assertSafeAncestors(dir: string): string {
  const real = realpathSync(dir);
  let current = path.parse(real).root;
  for (const part of [undefined, ...real.split(path.sep).filter(Boolean)]) {
    if (part) current = path.join(current, part);
    const st = lstatSync(current);
    if (st.isSymbolicLink() || !st.isDirectory()) refuse(real, `${current} is not a plain directory`);
    if (st.uid !== 0 && st.uid !== myUid()) refuse(real, `${current} is owned by uid ${st.uid}`);
    if (st.mode & WRITABLE_BY_OTHERS && !(st.mode & STICKY)) refuse(real, `${current} is writable by other users`);
  }
  return real;
}

function openDirNoFollow(dir: string): number {
  try {
    return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") refuse(dir, "it is a symlink or not a directory");
    throw error;
  }
}

/**
 * Creates `dir` (not recursively: its parent must exist and be checked) or accepts an existing one
 * only when it is a real directory owned by one of `owners`, not writable by group or others; then
 * gives it `owner` and `mode` through an O_NOFOLLOW descriptor.
 */
export function ensurePrivateDir(dir: string, opts: { mode: number; owners: number[]; owner?: PgUser }) {
  try {
    mkdirSync(dir, { mode: opts.mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const fd = openDirNoFollow(dir);
  try {
    const st = fstatSync(fd);
    if (!opts.owners.includes(st.uid)) refuse(dir, `it is owned by uid ${st.uid}`);
    if (st.mode & WRITABLE_BY_OTHERS) refuse(dir, `its mode ${(st.mode & 0o7777).toString(8)} lets other users write to it`);
    if (opts.owner) fchownSync(fd, opts.owner.uid, opts.owner.gid);
    fchmodSync(fd, opts.mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * The relocation root `<base>/runifold-<key>`: created by root with mode 0755, or re-used (to keep
 * the cluster) only after the checks above. `base` is injectable so tests never touch /var/tmp.
 */
export function prepareRelocationRoot(base: string, key: string): string {
  if (myUid() !== 0) throw new Error("the /var/tmp relocation is only for a root process");
  const parent = assertSafeAncestors(base);
  const root = path.join(parent, `runifold-${key}`);
  ensurePrivateDir(root, { mode: 0o755, owners: [0] });
  return root;
}

/**
 * The postgres binaries copied into the (checked) relocation root. Copied when absent; an existing
 * copy is walked with lstat and must be entirely root-owned and unwritable by others, because the
 * `postgres` user executes it (a planted binary would run as that user, and see every password).
 */
export function ensureCopiedBinaries(packaged: string, copied: string) {
  let present = true;
  try {
    lstatSync(path.join(copied, "bin", "postgres"));
  } catch {
    present = false;
  }
  if (!present) cpSync(packaged, copied, { recursive: true, verbatimSymlinks: true });
  assertRootOwnedTree(copied);
}

function assertRootOwnedTree(dir: string) {
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    const st = lstatSync(current);
    if (st.uid !== 0) refuse(current, `it is owned by uid ${st.uid}`);
    if (st.isSymbolicLink()) continue; // only root could have made it inside a root-owned tree
    if (st.mode & WRITABLE_BY_OTHERS) refuse(current, "it is writable by other users");
    if (st.isDirectory()) for (const entry of readdirSync(current)) stack.push(path.join(current, entry));
  }
}

/**
 * A secret for the server user (initdb's --pwfile): a random name, created exclusively (O_EXCL
 * never follows a planted symlink) and handed over by descriptor. The caller removes it.
 */
export function writeSecretFile(dir: string, content: string, owner: PgUser): string {
  const file = path.join(dir, `.pwfile-${randomBytes(12).toString("hex")}`);
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, content);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
  return file;
}

/**
 * Opens a file of the project's data root (password, state, log) without following a symlink in
 * its place: as root, a planted link would otherwise let us overwrite or append to any file.
 */
export function openNoFollow(file: string, mode: keyof typeof OPEN_FLAGS): number {
  try {
    return openSync(file, OPEN_FLAGS[mode] | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") refuse(file, "it is a symlink");
    throw error;
  }
}

const OPEN_FLAGS = {
  read: constants.O_RDONLY,
  /** Fails with EEXIST when the file (or any symlink) is there already. */
  create: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
  write: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
  append: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
};

/** chmod of a directory through an O_NOFOLLOW descriptor (a symlink in its place is refused). */
export function chmodDirNoFollow(dir: string, mode: number) {
  const fd = openDirNoFollow(dir);
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}
