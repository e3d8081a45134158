import { readFileSync } from "node:fs";
import path from "node:path";
import { type Copy, DockerfileParser, type Instruction, type JSONInstruction, type ModifiableInstruction } from "dockerfile-ast";
import { ROOT } from "../helpers/processes";

/**
 * The Dockerfile as data, parsed with dockerfile-ast (the parser of the Docker language server), so
 * tests can run what an image would run — its ENV, WORKDIR, CMD, ENTRYPOINT and HEALTHCHECK —
 * without a container runtime.
 */
export const DOCKERFILE = path.join(ROOT, "Dockerfile");

export type Stage = { name: string; base: string; instructions: Instruction[] };

export type ImageSpec = {
  /** The target and the stages it builds on, nearest first. */
  chain: string[];
  env: Record<string, string>;
  workdir: string | undefined;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
  /** The HEALTHCHECK's exec-form command, with its flags. */
  healthcheck?: { command: string[]; flags: string[] };
  exposes: string[];
};

export function parseDockerfile(text = readFileSync(DOCKERFILE, "utf8")): Stage[] {
  const dockerfile = DockerfileParser.parse(text);
  const froms = dockerfile.getFROMs();
  const all = dockerfile.getInstructions();
  return froms.map((from, index) => {
    const start = from.getRange().start.line;
    const end = froms[index + 1]?.getRange().start.line ?? Number.POSITIVE_INFINITY;
    return {
      name: from.getBuildStage() ?? `#${index}`,
      base: from.getImage() ?? "",
      instructions: all.filter((i) => i.getRange().start.line > start && i.getRange().start.line < end),
    };
  });
}

/** An exec-form (JSON array) instruction's argv; a shell form is refused (signals would reach a shell). */
function execForm(instruction: Instruction): string[] {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  if (strings.length === 0)
    throw new Error(`${instruction.getKeyword()} must use the exec (JSON) form: ${instruction.toString()}`);
  return strings.map((s) => s.getJSONValue());
}

/** What the image built with `--target <target>` holds, resolving FROM <stage> inheritance. */
export function imageSpec(target: string, stages = parseDockerfile()): ImageSpec {
  const byName = new Map(stages.map((stage) => [stage.name, stage]));
  const chain: Stage[] = [];
  for (let stage = byName.get(target); stage; stage = byName.get(stage.base)) chain.push(stage);
  if (chain.length === 0) throw new Error(`the Dockerfile has no stage ${target}`);
  const spec: ImageSpec = {
    chain: chain.map((s) => s.name),
    env: {},
    workdir: undefined,
    user: undefined,
    entrypoint: [],
    cmd: [],
    exposes: [],
  };
  for (const stage of [...chain].reverse()) {
    for (const instruction of stage.instructions) {
      const args = instruction.getArguments().map((a) => a.getValue());
      switch (instruction.getKeyword()) {
        case "ENV":
          for (const pair of args) {
            const cut = pair.indexOf("=");
            spec.env[pair.slice(0, cut)] = pair.slice(cut + 1);
          }
          break;
        case "WORKDIR":
          spec.workdir = args[0];
          break;
        case "USER":
          spec.user = args[0];
          break;
        case "EXPOSE":
          spec.exposes.push(...args);
          break;
        case "ENTRYPOINT":
          spec.entrypoint = execForm(instruction);
          spec.cmd = []; // Docker resets an inherited CMD when ENTRYPOINT is set
          break;
        case "CMD":
          spec.cmd = execForm(instruction);
          break;
        case "HEALTHCHECK": {
          const raw = instruction.getArgumentsContent() ?? "";
          const at = raw.search(/\bCMD\s*\[/);
          if (at < 0) {
            spec.healthcheck = undefined; // HEALTHCHECK NONE
            break;
          }
          const flags = (instruction as ModifiableInstruction).getFlags().map((flag) => `--${flag.getName()}=${flag.getValue()}`);
          spec.healthcheck = { command: JSON.parse(raw.slice(at + 3).trim()), flags };
          break;
        }
      }
    }
  }
  return spec;
}

/** Every COPY in the file: its sources, destination and --from stage (if any). */
export function copies(stages = parseDockerfile()): { stage: string; from?: string; sources: string[]; destination: string }[] {
  return stages.flatMap((stage) =>
    stage.instructions
      .filter((i) => i.getKeyword() === "COPY")
      .map((i) => {
        const copy = i as Copy;
        const args = copy.getArguments().map((a) => a.getValue());
        return {
          stage: stage.name,
          from: copy.getFromFlag()?.getValue() ?? undefined,
          sources: args.slice(0, -1),
          destination: args.at(-1) as string,
        };
      }),
  );
}

/**
 * An image's argv as a process on this machine: paths under the image's WORKDIR map to `appDir`,
 * the directory assemble.ts wrote that WORKDIR's contents to.
 */
export function hostArgv(spec: ImageSpec, appDir: string, extraArgs: string[] = []): string[] {
  const argv = [...spec.entrypoint, ...(extraArgs.length > 0 ? extraArgs : spec.cmd)];
  const workdir = spec.workdir ?? "/";
  return argv.map((arg) => (arg.startsWith(`${workdir}/`) ? path.join(appDir, arg.slice(workdir.length + 1)) : arg));
}
