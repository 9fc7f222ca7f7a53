# mgmt/module.mk: tern-mgmt renders `| json` with json-c; ternsh (mgmt/shell,
# library "shell") edits lines with libedit and pretty-prints JSON with json-c.
# zlib: the commit history keeps older commits gzip-compressed (docs/config.md).
# libmicrohttpd: the Prometheus endpoint (mgmt_metrics.c; docs/operations.md).
MGMT_LDLIBS := -ljson-c -lz -lmicrohttpd
SHELL_LDLIBS := -ledit -ljson-c
