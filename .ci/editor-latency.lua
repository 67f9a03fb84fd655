-- Measures `contractlint lsp` in Neovim's own LSP client (0.7 and later), as
-- .ci/editor-latency runs it: opens LSP_FILE (Stripe's spec) in LSP_ROOT,
-- then makes one-line edits in the unsaved buffer, each alone (the buffer
-- idle before it), and times each from its didChange leaving the client to
-- the diagnostics of that version arriving: the server's debounce and
-- comparison, and the protocol both ways. Neovim's own debounce is left at
-- its default; an edit made after an idle pause is sent at once, and the
-- clock starts when it is sent.
--
-- The edits: the first `type: integer` under `paths:` (one operation's
-- parameter), first as the first edit after the open's diagnostics, then
-- EDITS more times; it is put back; then the first `type: integer` under
-- `components:` (Stripe's account schema, which nearly every operation
-- reaches) EDITS times. Each edit differs from the base (integer -> number
-- -> string -> number ...): text equal to the base's is compared by bytes.
-- Writes the milliseconds to LSP_OUT as JSON; exits non-zero on a timeout.
local root, file, out, cmd = os.getenv("LSP_ROOT"), os.getenv("LSP_FILE"), os.getenv("LSP_OUT"), os.getenv("LSP_CMD")
local edits = tonumber(os.getenv("EDITS") or "9")
local pause = tonumber(os.getenv("PAUSE_MS") or "400")
local hrtime = vim.loop.hrtime
local function ms(ns) return math.floor(ns / 1e4 + 0.5) / 100 end

local arrived = {} -- version -> when its diagnostics came
local opened_at, first_at
local function record(err, result, ctx, config)
  first_at = first_at or hrtime()
  if result.version then
    arrived[result.version] = arrived[result.version] or hrtime()
  end
  vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
end

local function fail(why)
  io.stderr:write(why .. "\n")
  vim.cmd("cquit 1")
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = "contractlint",
  cmd = { cmd, "lsp" },
  root_dir = root,
  handlers = { ["textDocument/publishDiagnostics"] = record },
})
if not id then
  fail("contractlint lsp did not start")
end
local client = vim.lsp.get_client_by_id(id)
-- When each didChange leaves the client: its version is the buffer's.
local sent = {}
local notify = client.notify
client.notify = function(method, params)
  if method == "textDocument/didChange" then
    sent[params.textDocument.version] = hrtime()
  end
  return notify(method, params)
end
opened_at = hrtime()
vim.lsp.buf_attach_client(buf, id)

-- The client sends didOpen once the server is initialized; the open's
-- diagnostics are the first to come.
if not vim.wait(180000, function() return first_at ~= nil end, 5) then
  fail("no diagnostics after opening " .. file)
end
local open_ms = ms(first_at - opened_at)

local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local function line_below(section)
  local inside = false
  for i, l in ipairs(lines) do
    if l:match("^" .. section .. ":") then
      inside = true
    elseif inside and l:match("^ +type: integer$") then
      return i - 1 -- 0-based
    end
  end
  fail("no `type: integer` under " .. section .. ":")
end

-- set makes line n read text, waits for its diagnostics and returns the
-- milliseconds from its didChange to them.
local function set(n, text)
  vim.wait(pause, function() return false end, 10)
  vim.api.nvim_buf_set_lines(buf, n, n + 1, false, { text })
  local v = vim.lsp.util.buf_versions[buf]
  if not vim.wait(180000, function() return sent[v] ~= nil and arrived[v] ~= nil end, 2) then
    fail("no diagnostics for version " .. v)
  end
  return ms(arrived[v] - sent[v])
end

-- series edits line n `edits` times away from the base, after first.
local function series(n, first)
  local base = lines[n + 1]
  local typ, times = "number", {}
  local t = set(n, (base:gsub("integer", typ)))
  if first then
    table.insert(first, t)
  else
    table.insert(times, t)
  end
  for _ = 1, edits - (first and 0 or 1) do
    typ = typ == "number" and "string" or "number"
    table.insert(times, set(n, (base:gsub("integer", typ))))
  end
  set(n, base)
  return times
end

local first = {}
local params = series(line_below("paths"), first)
local shared = series(line_below("components"))
local f = io.open(out, "w")
f:write(vim.fn.json_encode({ open = open_ms, first = first[1], parameter = params, shared = shared }))
f:close()
vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
vim.cmd("qa!")
