// Two stand-ins for "other applications" on other origins of this host, for
// the rd tests: one on the portal's allow-list, one foreign. Each page says
// what was asked for and whether the browser sent the auth cookie;
// GET /__seen answers the list of requests so far (JSON).
//
//   node apps.mjs PORTS_FILE PARENT_PID
// listens on two free loopback ports, writes "APP_PORT=N\nFOREIGN_PORT=M\n"
// to PORTS_FILE (atomically), and exits on SIGTERM or when PARENT_PID is gone.
import { renameSync, writeFileSync } from "node:fs";
import http from "node:http";

const [portsFile, parentPid] = process.argv.slice(2);

function start() {
  const seen = [];
  const server = http.createServer((request, response) => {
    if (request.url === "/__seen") {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify(seen));
      return;
    }
    if (request.url === "/favicon.ico") {
      response.writeHead(404).end();
      return;
    }
    const cookie = /(?:^|;\s*)auth=/.test(request.headers.cookie || "");
    seen.push({ url: request.url, cookie });
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end(`<!DOCTYPE html><title>App</title><h1>The app</h1><p>${cookie ? "with" : "without"} the auth cookie</p>`);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });
}

const app = await start();
const foreign = await start();
writeFileSync(`${portsFile}.tmp`, `APP_PORT=${app}\nFOREIGN_PORT=${foreign}\n`);
renameSync(`${portsFile}.tmp`, portsFile);
process.on("SIGTERM", () => process.exit(0));
setInterval(() => {
  try { process.kill(Number(parentPid), 0); } catch { process.exit(0); }
}, 500);
