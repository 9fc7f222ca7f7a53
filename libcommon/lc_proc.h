/* libcommon/lc_proc.h: what /proc says of a process, to tell whether a pid
 * is still the process it was (rtrmgr's re-adoption of its components,
 * mgmt's sessions waiting for their shell). */
#ifndef LC_PROC_H
#define LC_PROC_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The start time of process pid (/proc/PID/stat field 22, clock ticks since
 * boot): with the pid it names one process for as long as the machine is
 * up, so a pid reused by another process is told apart. 0 when there is no
 * such process, it is a zombie (it has exited), or /proc does not say.
 */
uint64_t lc_proc_starttime(pid_t pid);

#endif /* LC_PROC_H */
