package io.perfpin.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The kernel's file systems, whose files are its interfaces, not data: a write to one is a request to the kernel
 * ({@code /proc/self/mem} writes the process's memory), and no file can be made beside one. perfpin writes none.
 */
final class KernelFileSystems {
    static final Set<String> TYPES = Set.of(
            "proc",
            "sysfs",
            "devtmpfs",
            "devpts",
            "cgroup",
            "cgroup2",
            "debugfs",
            "tracefs",
            "securityfs",
            "configfs",
            "bpf",
            "pstore",
            "efivarfs",
            "binfmt_misc",
            "fusectl",
            "mqueue");
    private static final Path MOUNT_INFO = Path.of("/proc/self/mountinfo");

    private KernelFileSystems() {}

    /**
     * Refuses {@code file} when its directory, or the nearest of its directories that exists, is on one of the
     * kernel's file systems, before anything is tried there.
     *
     * @throws IOException one line naming the file and the file system
     */
    static void refuse(Path file, Path directory) throws IOException {
        Path existing = directory;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        String type = existing == null ? "" : type(existing);
        if (TYPES.contains(type)) {
            throw new IOException(file + " is on " + type + ", a file system of the kernel's: perfpin writes only to"
                    + " regular file systems (a disk's, tmpfs)");
        }
    }

    /**
     * The type of the file system a directory is on: that of the /proc/self/mountinfo entry whose device is the
     * directory's. Not Java's FileStore, which takes the first mount at the directory's mount point rather than the
     * one on top: a tmpfs mounted over /dev is said to be devtmpfs. Empty when it cannot be told (no /proc): the
     * steps that follow refuse what they cannot do.
     */
    static String type(Path directory) {
        long dev;
        List<String> mounts;
        try {
            dev = (Long) Files.getAttribute(directory, "unix:dev");
            mounts = Files.readAllLines(MOUNT_INFO, StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return "";
        }
        // glibc's major() and minor() of a dev_t; mountinfo's third field is "major:minor"
        String device = (((dev >>> 32) & 0xfffff000L) | ((dev >>> 8) & 0xfffL)) + ":"
                + (((dev >>> 12) & 0xffffff00L) | (dev & 0xffL));
        for (String mount : mounts) {
            // ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
            String[] fields = mount.split(" ");
            int separator = List.of(fields).indexOf("-");
            if (fields.length > 2 && fields[2].equals(device) && separator > 0 && separator + 1 < fields.length) {
                return fields[separator + 1];
            }
        }
        return "";
    }
}
