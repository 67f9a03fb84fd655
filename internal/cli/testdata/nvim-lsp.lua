-- Drives `contractlint lsp` from Neovim's own LSP client (0.7 and later):
-- opens LSP_FILE in LSP_ROOT, changes `type: number` to `type: integer` on
-- the line after `price:` in the buffer (never saved), waits for the
-- diagnostics of that change and writes them, as the server published
-- them, to LSP_OUT as JSON. Exits non-zero when they do not come.
local root, file, out = os.getenv("LSP_ROOT"), os.getenv("LSP_FILE"), os.getenv("LSP_OUT")
local published = {}
local function record(err, result, ctx, config)
  table.insert(published, result)
  vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = "contractlint",
  cmd = { "contractlint", "lsp", "--debounce", "50ms" },
  root_dir = root,
  handlers = { ["textDocument/publishDiagnostics"] = record },
  flags = { debounce_text_changes = 50 },
})
if not id then
  io.stderr:write("contractlint lsp did not start\n")
  vim.cmd("cquit 2")
end
vim.lsp.buf_attach_client(buf, id)

local function fail(why)
  io.stderr:write(why .. "\n")
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(published))
  f:close()
  vim.cmd("cquit 1")
end

-- The open is compared first: its (empty) diagnostics say the server is up.
if not vim.wait(60000, function() return #published > 0 end, 20) then
  fail("no diagnostics after opening " .. file)
end

local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local edited = nil
for i, l in ipairs(lines) do
  if l:match("price:%s*$") and lines[i + 1] and lines[i + 1]:match("type: number") then
    edited = i -- 1-based: the next line, 0-based, is i
    vim.api.nvim_buf_set_lines(buf, i, i + 1, false, { (lines[i + 1]:gsub("type: number", "type: integer")) })
    break
  end
end
if not edited then
  fail("no `type: number` under `price:` in " .. file)
end

local function redefined()
  local last = published[#published]
  for _, d in ipairs(last.diagnostics or {}) do
    if d.code == "field-redefined" then
      return true
    end
  end
  return false
end
if not vim.wait(60000, redefined, 20) then
  fail("no field-redefined after the edit")
end
local f = io.open(out, "w")
f:write(vim.fn.json_encode(published[#published]))
f:close()
vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
vim.cmd("qa!")
