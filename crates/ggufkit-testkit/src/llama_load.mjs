// Loads GGUF files with node-llama-cpp (llama.cpp's loader, prebuilt), one JSON line per file:
// {"file", "ok", "error", "logs", "generated"}. Usage: node llama_load.mjs NODE_MODULES [--generate] FILE...
// A file llama.cpp aborts on ends the process; the caller restarts after it.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [nodeModules, ...rest] = process.argv.slice(2);
const generate = rest[0] === "--generate";
const files = generate ? rest.slice(1) : rest;
const mod = await import(pathToFileURL(path.join(nodeModules, "node-llama-cpp/dist/index.js")).href);
let logs = [];
const llama = await mod.getLlama({
    gpu: false,
    build: "never",
    logLevel: mod.LlamaLogLevel.warn,
    logger: (_level, message) => logs.push(String(message).trim()),
});
for (const file of files) {
    logs = [];
    const row = { file, ok: false, error: null, logs, generated: null };
    try {
        const model = await llama.loadModel({ modelPath: file });
        row.ok = true;
        if (generate) {
            const context = await model.createContext({ contextSize: 64 });
            const sequence = context.getSequence();
            const tokens = model.tokenize("hello world");
            const out = [];
            for await (const t of sequence.evaluate(tokens, { temperature: 0 })) {
                out.push(t);
                if (out.length >= 4) break;
            }
            row.generated = out.join(",");
            await context.dispose();
        }
        await model.dispose();
    } catch (e) {
        row.error = String((e && e.message) || e);
    }
    // llama.cpp's log lines reach JavaScript later than the call returns: let them arrive
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.stdout.write(JSON.stringify(row) + "\n");
}
process.exit(0);
