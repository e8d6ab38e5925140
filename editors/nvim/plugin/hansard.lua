-- Nothing runs until require('hansard').setup() is called (see editors/nvim/README or the
-- project README, "In the editor").
if vim.g.loaded_hansard then return end
vim.g.loaded_hansard = true
