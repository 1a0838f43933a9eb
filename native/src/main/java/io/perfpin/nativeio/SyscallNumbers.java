package io.perfpin.nativeio;

/**
 * The numbers of the system calls perfpin makes through {@code syscall(2)}, which differ between architectures:
 * from asm/unistd_64.h (x86-64) and asm-generic/unistd.h (arm64).
 */
final class SyscallNumbers {
    final long gettid;
    final long getcpu;
    final long schedGetaffinity;
    final long perfEventOpen;
    final long openat;
    final long statx;
    final long unlinkat;
    final long mkdirat;
    final long readlinkat;
    final long setresuid;
    final long setresgid;
    final long setgroups;
    final long write;
    final long renameat2;
    final long capset;
    final long fcntl;
    final long read;
    final long socket;
    final long connect;
    final long ppoll;
    final long ftruncate;
    final long pidfdOpen;
    final long pidfdSendSignal;

    private SyscallNumbers(long[] n) {
        gettid = n[0];
        getcpu = n[1];
        schedGetaffinity = n[2];
        perfEventOpen = n[3];
        openat = n[4];
        statx = n[5];
        unlinkat = n[6];
        mkdirat = n[7];
        readlinkat = n[8];
        setresuid = n[9];
        setresgid = n[10];
        setgroups = n[11];
        write = n[12];
        renameat2 = n[13];
        capset = n[14];
        fcntl = n[15];
        read = n[16];
        socket = n[17];
        connect = n[18];
        ppoll = n[19];
        ftruncate = n[20];
        pidfdOpen = n[21];
        pidfdSendSignal = n[22];
    }

    private static volatile SyscallNumbers thisMachine;

    static SyscallNumbers forThisMachine() {
        SyscallNumbers known = thisMachine;
        if (known == null) {
            known = of(System.getProperty("os.name"), System.getProperty("os.arch"));
            thisMachine = known;
        }
        return known;
    }

    private static SyscallNumbers of(String os, String arch) {
        if (!"Linux".equals(os)) {
            throw new BackendUnavailableException("perf_event_open exists only on Linux, not on " + os);
        }
        return switch (arch) {
            // gettid getcpu sched_getaffinity perf_event_open openat statx unlinkat mkdirat readlinkat
            // setresuid setresgid setgroups write renameat2 capset fcntl read socket connect ppoll ftruncate
            // pidfd_open pidfd_send_signal (numbered alike on every architecture, as every call from Linux 5.1 on)
            case "amd64", "x86_64" ->
                new SyscallNumbers(new long[] {
                    186, 309, 204, 298, 257, 332, 263, 258, 267, 117, 119, 116, 1, 316, 126, 72, 0, 41, 42, 271, 77,
                    434, 424
                });
            case "aarch64" ->
                new SyscallNumbers(new long[] {
                    178, 168, 123, 241, 56, 291, 35, 34, 78, 147, 149, 159, 64, 276, 91, 25, 63, 198, 203, 73, 46, 434,
                    424
                });
            default ->
                throw new BackendUnavailableException(
                        "no system call numbers for os.arch=" + arch + "; supported: amd64, aarch64");
        };
    }
}
