/* Measure on this machine as on a CPU without AMX (issue 32): refuse the Linux permission
 * request for AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM), which ONNX Runtime's MLAS and
 * oneDNN/MKL (CTranslate2) make before they use AMX; both then fall back to AVX-512 VNNI, the
 * int8 kernels of an AMD EPYC (Zen 4) or an Intel CPU before Sapphire Rapids.
 *
 *     gcc -shared -fPIC -O2 -o /tmp/no_amx.so benchmarks/no_amx.c -ldl
 *     LD_PRELOAD=/tmp/no_amx.so python benchmarks/run.py ...    # every engine process inherits it
 *
 * A measuring aid only: nothing in desktop-mt uses it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

#define ARCH_REQ_XCOMP_PERM 0x1023

long syscall(long number, ...) {
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_arch_prctl && a[0] == ARCH_REQ_XCOMP_PERM) {
        errno = EPERM;
        return -1;
    }
    static long (*real)(long, ...) = 0;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
