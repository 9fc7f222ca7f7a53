/* ipc/ipc_auth.c: who may use a server's sockets: their owner, groups and modes, the component-only method check, the audit log of what people ask for, and why a client was refused. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc_int.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

/* ---- socket files ---------------------------------------------------------- */

/* A group name or number: 0 with *g set, -EINVAL when there is no such group. */
static int
group_parse(const char *s, gid_t *g)
{
	struct group gr, *gp = NULL;
	char buf[4096], *end;
	unsigned long v;

	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno != 0 || *end != '\0' || v >= IPC_ID_NONE)
			return (-EINVAL);
		*g = (gid_t)v;
		return (0);
	}
	if (getgrnam_r(s, &gr, buf, sizeof(buf), &gp) != 0 || gp == NULL)
		return (-EINVAL);
	*g = gp->gr_gid;
	return (0);
}

static int
group_env(const char *name, gid_t *g)
{
	const char *v = getenv(name);

	*g = IPC_ID_NONE;
	if (v == NULL || v[0] == '\0')
		return (0);
	return (group_parse(v, g));
}

int
ipc_access_from_env(const struct ipc_service_desc *svc, struct ipc_access *a)
{
	int rv;

	a->owner = IPC_ID_NONE;
	a->comp_uid = IPC_ID_NONE;
	a->rw_group = IPC_ID_NONE;
	if ((rv = group_env("TERN_OPERATOR_GROUP", &a->ro_group)) != 0)
		return (rv);
	if (svc != NULL && (svc->flags & IPC_SVC_FRONT))
		return (group_env("TERN_ADMIN_GROUP", &a->rw_group));
	return (0);
}

/*
 * The socket was bound 0600 and is already listening: only its owner (and
 * root) could connect so far. The owner and group change first and the
 * mode last, so there is never a moment when someone else's connect()
 * succeeds on a socket not yet given its group.
 */
int
ipc_auth_socket(const char *path, const struct ipc_access *a, bool ro)
{
	gid_t g = ro ? a->ro_group : a->rw_group;

	if ((a->owner != IPC_ID_NONE || g != IPC_ID_NONE) &&
	    chown(path, a->owner, g) != 0)
		return (-errno);
	if (g != IPC_ID_NONE && chmod(path, 0660) != 0)
		return (-errno);
	return (0);
}

/* ---- the method check --------------------------------------------------------- */

/* Root, ourselves (every component runs as the component user) or comp_uid. */
static bool
peer_is_component(const struct ipc_server *s, struct ipc_peer *p)
{
	if (!p->auth_known) {
		uid_t u = p->cred.uid;

		p->auth_comp = p->has_cred &&
		    (u == 0 || u == geteuid() ||
			(s->acc.comp_uid != IPC_ID_NONE &&
			    u == s->acc.comp_uid));
		p->auth_known = true;
	}
	return (p->auth_comp);
}

int
ipc_auth_check(struct ipc_server *s, struct ipc_peer *p,
    const struct ipc_method_desc *m, char *why, size_t len)
{
	uid_t cu;

	if (p->ro && (m->flags & IPC_M_ADMIN)) {
		snprintf(why, len,
		    "%s is an admin method: refused on the read-only socket",
		    m->name);
		return (IPC_DENIED);
	}
	/* Once per method call of a batch: the answer is kept per peer. */
	if (!(m->flags & IPC_M_COMPONENT) || peer_is_component(s, p))
		return (IPC_OK);
	s->st.denied++;
	cu = s->acc.comp_uid != IPC_ID_NONE ? s->acc.comp_uid : geteuid();
	if (p->has_cred)
		snprintf(why, len,
		    "%s: %s is for tern's components only (they run as uid "
		    "%u): refused to uid %u pid %d%s%s%s",
		    s->svc->name, m->name, (unsigned)cu, (unsigned)p->cred.uid,
		    (int)p->cred.pid, p->component[0] ? " (says it is '" : "",
		    p->component, p->component[0] ? "')" : "");
	else
		snprintf(why, len,
		    "%s: %s is for tern's components only: refused to a peer "
		    "whose credentials are unknown",
		    s->svc->name, m->name);
	/* A flood of refused calls must not flood the log too. */
	LC_LOG_RATELIMIT(LC_LOG_WARNING, 10, 5, "%s (%s)", why,
	    ipc_server_path(s, p->ro));
	return (IPC_DENIED);
}

/* ---- the audit log ------------------------------------------------------------ */

/* The set scalar fields of m as "name=value ...", for the log line. */
static void
fields_str(const ProtobufCMessage *m, char *buf, size_t len)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->n_fields && o + 1 < len; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const char *v = (const char *)m + f->offset;
		char val[96];

		if (f->label == PROTOBUF_C_LABEL_REPEATED)
			continue;
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
		    *(const uint32_t *)((const char *)m +
			f->quantifier_offset) != f->id)
			continue;
		switch (f->type) {
		case PROTOBUF_C_TYPE_STRING: {
			const char *str = *(char *const *)v;
			size_t k = 0;

			if (str == NULL || str[0] == '\0')
				continue;
			val[k++] = '"';
			for (; *str != '\0' && k + 3 < sizeof(val); str++)
				val[k++] = (unsigned char)*str < 0x20 ||
					*str == 0x7f || *str == '"' ?
				    '?' :
				    *str;
			val[k++] = '"';
			val[k] = '\0';
			break;
		}
		case PROTOBUF_C_TYPE_BOOL:
			if (!*(const protobuf_c_boolean *)v)
				continue;
			snprintf(val, sizeof(val), "true");
			break;
		case PROTOBUF_C_TYPE_INT32:
		case PROTOBUF_C_TYPE_SINT32:
		case PROTOBUF_C_TYPE_SFIXED32:
		case PROTOBUF_C_TYPE_ENUM:
			if (*(const int32_t *)v == 0)
				continue;
			snprintf(val, sizeof(val), "%d", *(const int32_t *)v);
			break;
		case PROTOBUF_C_TYPE_UINT32:
		case PROTOBUF_C_TYPE_FIXED32:
			if (*(const uint32_t *)v == 0)
				continue;
			snprintf(val, sizeof(val), "%u", *(const uint32_t *)v);
			break;
		case PROTOBUF_C_TYPE_INT64:
		case PROTOBUF_C_TYPE_SINT64:
		case PROTOBUF_C_TYPE_SFIXED64:
			if (*(const int64_t *)v == 0)
				continue;
			snprintf(val, sizeof(val), "%lld",
			    (long long)*(const int64_t *)v);
			break;
		case PROTOBUF_C_TYPE_UINT64:
		case PROTOBUF_C_TYPE_FIXED64:
			if (*(const uint64_t *)v == 0)
				continue;
			snprintf(val, sizeof(val), "%llu",
			    (unsigned long long)*(const uint64_t *)v);
			break;
		default:
			continue; /* bytes, floats, sub-messages: not for a log line */
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%s",
		    o > 0 ? " " : "", f->name, val);
	}
	if (o >= len)
		buf[len - 1] = '\0';
}

void
ipc_auth_audit(const struct ipc_server *s, const struct ipc_peer *p,
    const struct ipc_method_desc *m, const ProtobufCMessage *msg)
{
	char f[256] = "";

	if (msg != NULL)
		fields_str(msg, f, sizeof(f));
	if (p->has_cred)
		lc_log_notice("%s: %s from uid %u pid %d (%s) on %s%s%s",
		    s->svc->name, m->name, (unsigned)p->cred.uid,
		    (int)p->cred.pid,
		    p->component[0] ? p->component : "no hello",
		    ipc_server_path(s, p->ro), f[0] ? ": " : "", f);
	else
		lc_log_notice("%s: %s from a peer of unknown credentials (%s) "
			      "on %s%s%s",
		    s->svc->name, m->name,
		    p->component[0] ? p->component : "no hello",
		    ipc_server_path(s, p->ro), f[0] ? ": " : "", f);
}

/* ---- why a client was refused ------------------------------------------------ */

static void
mode_str(mode_t m, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = S_ISSOCK(m) ? 's' : S_ISDIR(m) ? 'd' : S_ISREG(m) ? '-' : '?';
	for (int i = 0; i < 9; i++)
		out[1 + i] = (m & (0400u >> i)) ? rwx[i] : '-';
	out[10] = '\0';
}

static void
user_str(uid_t u, char *out, size_t len)
{
	struct passwd pw, *pp = NULL;
	char buf[2048];

	if (getpwuid_r(u, &pw, buf, sizeof(buf), &pp) == 0 && pp != NULL)
		snprintf(out, len, "%s", pp->pw_name);
	else
		snprintf(out, len, "%u", (unsigned)u);
}

static void
group_str(gid_t g, char *out, size_t len)
{
	struct group gr, *gp = NULL;
	char buf[4096];

	if (getgrgid_r(g, &gr, buf, sizeof(buf), &gp) == 0 && gp != NULL)
		snprintf(out, len, "%s", gp->gr_name);
	else
		snprintf(out, len, "%u", (unsigned)g);
}

/* "srw-rw---- owner:group" of sb */
static void
file_str(const struct stat *sb, char *out, size_t len)
{
	char m[11], u[64], g[64];

	mode_str(sb->st_mode, m);
	user_str(sb->st_uid, u, sizeof(u));
	group_str(sb->st_gid, g, sizeof(g));
	snprintf(out, len, "%s %s:%s", m, u, g);
}

char *
ipc_access_explain(const char *path, char *buf, size_t len)
{
	char dir[256], f[160], g[64], o[64];
	struct stat sb;
	size_t i;

	if (len == 0)
		return (buf);
	/* A directory on the way that we may not enter (search permission). */
	snprintf(dir, sizeof(dir), "%s", path);
	for (i = 1; dir[i] != '\0'; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		if (faccessat(AT_FDCWD, dir, X_OK, AT_EACCESS) != 0 &&
		    errno == EACCES) {
			if (stat(dir, &sb) == 0)
				file_str(&sb, f, sizeof(f));
			else
				snprintf(f, sizeof(f), "?");
			snprintf(buf, len,
			    "%s: permission denied: uid %u may not enter %s "
			    "(%s)",
			    path, (unsigned)geteuid(), dir, f);
			return (buf);
		}
		dir[i] = '/';
	}
	if (stat(path, &sb) != 0) {
		snprintf(buf, len, "%s: permission denied (%s)", path,
		    strerror(errno));
		return (buf);
	}
	file_str(&sb, f, sizeof(f));
	if ((sb.st_mode & 0020) && !(sb.st_mode & 0002)) {
		group_str(sb.st_gid, g, sizeof(g));
		snprintf(buf, len,
		    "%s: permission denied: for the members of group %s (%s), "
		    "which uid %u is not in",
		    path, g, f, (unsigned)geteuid());
	} else if (!(sb.st_mode & 0002)) {
		user_str(sb.st_uid, o, sizeof(o));
		snprintf(buf, len,
		    "%s: permission denied: only its owner %s and root may use "
		    "it (%s)",
		    path, o, f);
	} else {
		snprintf(buf, len, "%s: permission denied (%s)", path, f);
	}
	return (buf);
}
