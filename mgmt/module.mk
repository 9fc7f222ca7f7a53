# mgmt/module.mk: tern-mgmt renders `| json` with json-c; ternsh (mgmt/shell,
# library "shell") edits lines with libedit and pretty-prints JSON with json-c.
MGMT_LDLIBS := -ljson-c
SHELL_LDLIBS := -ledit -ljson-c
