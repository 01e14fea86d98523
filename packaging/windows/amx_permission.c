/* LD_PRELOAD for Wine on a Linux CPU with AMX (Intel Sapphire Rapids and later): ask the kernel
 * for permission to use the AMX tile state (ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) before
 * anything runs. ONNX Runtime's AMX kernels die with SIGILL under Wine without it; on Windows
 * the OS does this itself, and AMD CPUs have no AMX. packaging/windows/wine_stage.py builds it. */
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

__attribute__((constructor)) static void request_amx_permission(void) {
    syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
}
