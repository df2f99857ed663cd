/* Test setup for running the Windows build under Wine 8.0 (Debian 12), not part of treeglass.
 * Rust's std (1.78 and later) takes its random bytes from ProcessPrng in bcryptprimitives.dll,
 * which Wine only has from 8.13: without it the binary does not start. This DLL gives it,
 * forwarding to BCryptGenRandom with the system's preferred generator. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
