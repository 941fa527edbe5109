// The whole extension: start `vlint server` and hand it the files vlint reads.
// Build: npm install && npx @vscode/vsce package  (then: code --install-extension vlint-0.1.0.vsix)
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("vlint").get("path") || "vlint";
  const files = (language) => ({ scheme: "file", language });
  client = new LanguageClient(
    "vlint",
    "vlint",
    { command, args: ["server"] },
    {
      documentSelector: [
        files("shellscript"),
        files("yaml"),
        files("dockerfile"),
        files("python"),
        { scheme: "file", pattern: "**/{.env,*.env,.env.*}" },
      ],
      // sends workspace/didChangeConfiguration when a vlint.* setting changes (the server also asks
      // for the "vlint" section at start-up)
      synchronize: { configurationSection: "vlint" },
    }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
