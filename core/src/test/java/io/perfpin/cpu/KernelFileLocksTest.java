package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.nativeio.FileStat;
import org.junit.jupiter.api.Test;

class KernelFileLocksTest {
    /**
     * This project's machine's {@code /proc/locks} (kernel 6.18) while one process held a POSIX record lock on one
     * file, an open file description's lock on another and a waiter for it, and another process a flock.
     */
    private static final String TABLE = """
            1: POSIX  ADVISORY  WRITE 15845 fe:00:9978704 0 EOF
            2: OFDLCK ADVISORY  WRITE -1 fe:00:9978699 0 EOF
            2: -> OFDLCK ADVISORY  WRITE -1 fe:00:9978699 0 EOF
            3: FLOCK  ADVISORY  WRITE 13742 fe:00:9987685 0 EOF
            """;

    /** statx's device of {@code fe:00}: major in the high 32 bits, minor in the low. */
    private static final long DEVICE = 0xfeL << 32;

    @Test
    void aPosixLockNamesItsProcessAnOpenFilesLockNamesNone() {
        KernelFileLocks locks = KernelFileLocks.parse(TABLE);
        assertEquals(15845, locks.owner(file(DEVICE, 9978704)));
        assertEquals(KernelFileLocks.NO_PID, locks.owner(file(DEVICE, 9978699)));
    }

    @Test
    void aFlockAnotherDeviceAndAnUnlockedFileAreNotLocked() {
        KernelFileLocks locks = KernelFileLocks.parse(TABLE);
        assertEquals(KernelFileLocks.NOT_LOCKED, locks.owner(file(DEVICE, 9987685)), "flock: not perfpin's kind");
        assertEquals(KernelFileLocks.NOT_LOCKED, locks.owner(file(DEVICE + 1, 9978704)), "fe:01");
        assertEquals(KernelFileLocks.NOT_LOCKED, locks.owner(file(DEVICE, 1)));
        assertEquals(KernelFileLocks.NOT_LOCKED, KernelFileLocks.parse("").owner(file(DEVICE, 9978704)));
    }

    private static FileStat file(long device, long inode) {
        return new FileStat(FileStat.S_IFREG | 0600, 0, 0, 0, 1, inode, device, 0);
    }
}
