-- hansard for Neovim (0.7 and later): starts `hansard lsp` with the built-in LSP client for
-- files inside git repositories, shows each block's author as a code lens (and as inlay hints
-- on Neovim 0.10+), and adds :HansardWhy and :HansardConversation.
--
--   require('hansard').setup({})            -- defaults below
--
-- Everything shown comes from the server; this file only starts it, attaches buffers and
-- draws what it answers.
local M = {}

M.config = {
  cmd = { 'hansard', 'lsp' },
  marks = 'both',        -- 'both' | 'codelens' | 'inlay' | 'none' (inlay needs Neovim 0.10+)
  code_lens = true,      -- false: no code lens (one per run of lines a session wrote), whatever marks says
  poll_seconds = 2,      -- how often the server looks at .git/HEAD, the agent homes and the store
  sync = true,           -- index new agent transcripts in the background
  filetypes = nil,       -- nil: every file in a git repository; or a list of filetypes
}

local client_id = nil

local function git_root(path)
  if path == '' then return nil end
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local found = vim.fn.finddir('.git', dir .. ';')
  if found == '' then found = vim.fn.findfile('.git', dir .. ';') end -- a worktree's .git file
  if found == '' then return nil end
  return vim.fn.fnamemodify(found, ':p:h:h'):gsub('/$', '')
end

-- vim.lsp.codelens.refresh() asks for the current buffer. Ask only once the server has said it
-- serves code lenses: on Neovim 0.7 a refresh sent before that never completes, and no later
-- refresh of that buffer would be sent.
local function refresh_lenses(bufnr)
  if not (M.config.marks == 'both' or M.config.marks == 'codelens') or M.config.code_lens == false then return end
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  if not client or not client.server_capabilities or not client.server_capabilities.codeLensProvider then return end
  if not vim.lsp.buf_is_attached(bufnr, client_id) or not vim.api.nvim_buf_is_loaded(bufnr) then return end
  vim.api.nvim_buf_call(bufnr, function() pcall(vim.lsp.codelens.refresh) end)
end

local function refresh_all()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do refresh_lenses(b) end
end

local function enable_inlay(bufnr)
  if not (M.config.marks == 'both' or M.config.marks == 'inlay') then return end
  local ih = vim.lsp.inlay_hint
  if ih == nil then return end -- before Neovim 0.10
  if not pcall(ih.enable, true, { bufnr = bufnr }) then pcall(ih.enable, bufnr, true) end
end

-- The code lens and hover link command: open the conversation around the message.
local function show_text(text)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'markdown'
  pcall(vim.api.nvim_buf_set_name, buf, 'hansard://conversation/' .. buf)
  return buf
end

local function execute(bufnr, command, arguments, on_result)
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  if not client then
    vim.notify('hansard: the language server is not running', vim.log.levels.WARN)
    return
  end
  client.request('workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      vim.notify('hansard: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end, bufnr)
end

local function here()
  local bufnr = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  return bufnr, { uri = vim.uri_from_bufnr(bufnr), line = line }
end

function M.why()
  local bufnr, where = here()
  execute(bufnr, 'hansard.why', { where }, function(result)
    if result == vim.NIL or result == nil or result.markdown == nil then
      local msg = (result and result ~= vim.NIL and result.error and result.error.message) or 'no answer for this line'
      vim.notify('hansard: ' .. msg, vim.log.levels.INFO)
      return
    end
    M.last_why = result.markdown
    -- The server answers in plain text for Neovim (its hover capabilities say it renders
    -- Markdown its own way), in Markdown for a client that renders CommonMark.
    local ft = result.kind == 'plaintext' and 'text' or 'markdown'
    vim.lsp.util.open_floating_preview(vim.split(result.markdown, '\n', { plain = true }), ft,
      { border = 'single', max_width = 100 })
  end)
end

function M.conversation()
  local bufnr, where = here()
  execute(bufnr, 'hansard.showConversation', { where, { show = false } }, function(result)
    if result == vim.NIL or result == nil then
      vim.notify('hansard: no session wrote this line', vim.log.levels.INFO)
      return
    end
    M.last_conversation = show_text(result.text)
  end)
end

-- Called for the code lens command (vim.lsp.codelens.run()).
local function lens_command(command, ctx)
  local args = command.arguments or {}
  execute(ctx.bufnr, 'hansard.showConversation', { args[1], args[2], { show = false } }, function(result)
    if result ~= vim.NIL and result ~= nil then M.last_conversation = show_text(result.text) end
  end)
end

local function start()
  if client_id and vim.lsp.get_client_by_id(client_id) then return client_id end
  client_id = vim.lsp.start_client({
    name = 'hansard',
    cmd = M.config.cmd,
    root_dir = vim.fn.getcwd(),
    init_options = {
      marks = M.config.marks,
      codeLens = M.config.code_lens ~= false,
      pollSeconds = M.config.poll_seconds,
      sync = M.config.sync,
      refresh = true, -- Neovim 0.7 does not declare codeLens refresh; the handler below does it
    },
    handlers = {
      ['workspace/codeLens/refresh'] = function()
        vim.schedule(refresh_all)
        return vim.NIL
      end,
    },
    on_attach = function(_, bufnr)
      enable_inlay(bufnr)
      refresh_lenses(bufnr)
    end,
  })
  return client_id
end

function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' then return end
  local ft = M.config.filetypes
  if ft and not vim.tbl_contains(ft, vim.bo[bufnr].filetype) then return end
  if not git_root(vim.api.nvim_buf_get_name(bufnr)) then return end
  local id = start()
  if id then vim.lsp.buf_attach_client(bufnr, id) end
end

function M.client_id() return client_id end

function M.setup(opts)
  M.config = vim.tbl_extend('force', M.config, opts or {})
  vim.lsp.commands['hansard.showConversation'] = lens_command
  local group = vim.api.nvim_create_augroup('hansard', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(ev) M.attach(ev.buf) end,
  })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorHold', 'InsertLeave', 'BufWritePost' }, {
    group = group,
    callback = function(ev) refresh_lenses(ev.buf) end,
  })
  vim.api.nvim_create_user_command('HansardWhy', M.why, { desc = 'hansard: who wrote this line, and why' })
  vim.api.nvim_create_user_command('HansardConversation', M.conversation,
    { desc = 'hansard: open the conversation that wrote this line' })
  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then M.attach(b) end
  end
end

return M
