-- vlint server for Neovim 0.10+: put this file in ~/.config/nvim/plugin/ (or require it from init.lua).
-- pip install 'vlint[server]' first (vlint must be on PATH, or change cmd).
vim.api.nvim_create_autocmd("FileType", {
  pattern = { "sh", "bash", "yaml", "dockerfile", "python", "conf" },
  callback = function(args)
    -- the workspace folder is the lint root: vlint reads nothing above it
    local root = vim.fs.root(args.buf, { ".git", ".vlint.toml", "pyproject.toml" })
    vim.lsp.start({
      name = "vlint",
      cmd = { "vlint", "server" },
      root_dir = root,
      -- the same keys as the VS Code settings (editors/vscode/package.json), all optional
      init_options = { vlint = { gpu = "", extendSelect = {} } },
    }, { bufnr = args.buf })
  end,
})
