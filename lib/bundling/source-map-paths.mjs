/**
 * `node source-map-paths.mjs <asset dir> <project root>`: rewrites the asset's source map so its
 * `sources` are relative to the project root, not to wherever the bundle was written. esbuild
 * writes them relative to the output folder, which lies inside the cloud assembly directory, so
 * the asset's content, and with it its hash, would change with `cdk synth -o`. Plain JavaScript:
 * the bundler runs it with the Node that runs the synth, before any TypeScript loader.
 */

import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const [assetDir, projectRoot] = process.argv.slice(2);
if (!assetDir || !projectRoot) throw new Error('usage: source-map-paths.mjs <asset dir> <project root>');
const file = join(assetDir, 'index.mjs.map');
const map = JSON.parse(readFileSync(file, 'utf8'));
// esbuild follows symlinks: when node_modules is a link (a git worktree, a scratch copy sharing one
// install), a package's sources lie outside the project. They are named under node_modules all the same,
// so the asset, and its hash, do not depend on where the install really is.
const modules = join(projectRoot, 'node_modules');
const realModules = existsSync(modules) ? realpathSync(modules) : modules;
const underProject = (path) =>
  path === realModules || path.startsWith(realModules + sep) ? join(modules, relative(realModules, path)) : path;
map.sources = map.sources.map((source) =>
  relative(projectRoot, underProject(resolve(assetDir, source)))
    .split(sep)
    .join('/'),
);
writeFileSync(file, JSON.stringify(map));
