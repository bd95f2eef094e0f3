/**
 * `node source-map-paths.mjs <asset dir> <project root>`: rewrites the asset's source map so its
 * `sources` are relative to the project root, not to wherever the bundle was written. esbuild
 * writes them relative to the output folder, which lies inside the cloud assembly directory, so
 * the asset's content, and with it its hash, would change with `cdk synth -o`. Plain JavaScript:
 * the bundler runs it with the Node that runs the synth, before any TypeScript loader.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const [assetDir, projectRoot] = process.argv.slice(2);
if (!assetDir || !projectRoot) throw new Error('usage: source-map-paths.mjs <asset dir> <project root>');
const file = join(assetDir, 'index.mjs.map');
const map = JSON.parse(readFileSync(file, 'utf8'));
map.sources = map.sources.map((source) => relative(projectRoot, resolve(assetDir, source)).split(sep).join('/'));
writeFileSync(file, JSON.stringify(map));
