/* Wine 8 (Debian 12) has no bcryptprimitives.dll, which Windows 10 and later ship and Rust's
 * standard library imports (ProcessPrng) for its random keys. For the Wine test only
 * (warm-pipe.test.mjs builds it into the test's Wine prefix): ProcessPrng from RtlGenRandom. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
