/* bcryptprimitives.dll for Wine 8.0, which lacks it: Rust's standard library (pydantic_core,
 * safetensors) imports ProcessPrng from it since Rust 1.78, so those extension modules fail with
 * "DLL load failed" under Wine 8.0 (Wine 9 has it; every Windows since 8 has it). Windows'
 * ProcessPrng fills the buffer from the system's random number generator and always returns
 * TRUE; RtlGenRandom (advapi32's SystemFunction036) does the same job. Only the Windows stage
 * (packaging/windows/wine_stage.py) builds it, into its Wine prefix: never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
