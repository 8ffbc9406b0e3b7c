// Preloaded into Node (`node --import`) by the tests that run a real server in HTTP mode.
// server-everything calls `app.listen(PORT)`, which binds every interface; tests must stay on
// the loopback interface, so a listen() given only a port gets "127.0.0.1" as its host.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const portOnly = (typeof args[0] === "number" || typeof args[0] === "string") &&
    (args.length === 1 || typeof args[1] === "function");
  if (portOnly) args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};
