package io.perfpin.jvm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What attaching needs from {@code /proc/<pid>/status}, which every user may read: who the process runs
 * as, its pid inside its own pid namespace, and whether it catches SIGQUIT.
 *
 * @param command        the {@code Name:} field (the kernel's comm, 15 bytes at most)
 * @param zombie         whether it has exited and only waits to be reaped
 * @param uids           the fields of {@code Uid:}: real, effective, saved and filesystem uid (empty without one)
 * @param gids           the fields of {@code Gid:}, in the same order
 * @param namespacePid   last field of {@code NSpid:}: the pid the process sees for itself
 * @param nestedPidSpace whether {@code NSpid:} has more than one field: the process lives in a pid
 *                       namespace below the one our /proc shows, and sees other ids than ours
 * @param catchesQuit    whether SIGQUIT is caught ({@code SigCgt:}) and not ignored ({@code SigIgn:});
 *                       the default action of SIGQUIT ends the process with a core dump
 * @param groups         {@code Groups:}, the supplementary groups, which a helper acting with the process's rights
 *                       takes too
 */
record ProcStatus(
        String command,
        boolean zombie,
        List<Integer> uids,
        List<Integer> gids,
        long namespacePid,
        boolean nestedPidSpace,
        boolean catchesQuit,
        List<Integer> groups) {
    /** SIGQUIT is signal 3: bit 2 of the signal masks, whose bit n-1 stands for signal n. */
    private static final long SIGQUIT_BIT = 1L << 2;
    /** Of the fields of {@code Uid:} and {@code Gid:}, the effective id is the second. */
    private static final int EFFECTIVE = 1;

    ProcStatus {
        uids = List.copyOf(uids);
        gids = List.copyOf(gids);
        groups = List.copyOf(groups);
    }

    /** The uid the kernel checks the process's access with; -1 when the file has no {@code Uid:}. */
    int effectiveUid() {
        return uids.size() > EFFECTIVE ? uids.get(EFFECTIVE) : -1;
    }

    int effectiveGid() {
        return gids.size() > EFFECTIVE ? gids.get(EFFECTIVE) : -1;
    }

    static ProcStatus ofProcess(long pid) throws IOException {
        return read(Path.of("/proc/" + pid + "/status"), pid);
    }

    static ProcStatus ofTask(long pid, long tid) throws IOException {
        return read(Path.of("/proc/" + pid + "/task/" + tid + "/status"), tid);
    }

    static ProcStatus ofSelf() {
        try {
            return ofProcess(ThisProcess.pid());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ProcStatus read(Path file, long id) throws IOException {
        // Files.readAllBytes trusts the size /proc reports (0) and reads a byte, then at an offset: a stream
        // reads from the start in whole buffers. Lenient UTF-8: a thread name cut at 15 bytes may end inside
        // a character.
        try (InputStream in = Files.newInputStream(file)) {
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), id);
        }
    }

    /**
     * Parses a status file of process or thread {@code id}. Its lines are scanned, without streams or patterns:
     * {@code perfpin stat} reads it several times, in a JVM too short-lived to compile either.
     */
    static ProcStatus parse(String text, long id) {
        String command = "";
        boolean zombie = false;
        List<Integer> uids = List.of();
        List<Integer> gids = List.of();
        String[] nsPids = null;
        long caught = 0;
        long ignored = 0;
        List<Integer> groups = List.of();
        for (int from = 0, to; from < text.length(); from = to + 1) {
            to = text.indexOf('\n', from);
            if (to < 0) {
                to = text.length();
            }
            String line = text.substring(from, to);
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String value = line.substring(colon + 1).strip();
            switch (line.substring(0, colon)) {
                case "Name" -> command = value;
                case "State" -> zombie = value.startsWith("Z") || value.startsWith("X");
                case "Uid" -> uids = ids(value);
                case "Gid" -> gids = ids(value);
                case "NSpid" -> nsPids = fields(value);
                case "SigCgt" -> caught = Long.parseUnsignedLong(value, 16);
                case "SigIgn" -> ignored = Long.parseUnsignedLong(value, 16);
                case "Groups" -> groups = value.isEmpty() ? List.of() : ids(value);
                default -> {}
            }
        }
        // Kernels before 4.1 have no NSpid: there the id we know is the only one.
        long namespacePid = nsPids == null ? id : Long.parseLong(nsPids[nsPids.length - 1]);
        boolean nested = nsPids != null && nsPids.length > 1;
        boolean catchesQuit = (caught & SIGQUIT_BIT) != 0 && (ignored & SIGQUIT_BIT) == 0;
        return new ProcStatus(command, zombie, uids, gids, namespacePid, nested, catchesQuit, groups);
    }

    private static List<Integer> ids(String value) {
        String[] fields = fields(value);
        Integer[] ids = new Integer[fields.length];
        for (int i = 0; i < fields.length; i++) {
            ids[i] = Integer.parseInt(fields[i]);
        }
        return List.of(ids);
    }

    /** The fields of a value that the kernel separates with tabs (or spaces), none empty. */
    private static String[] fields(String value) {
        List<String> fields = new ArrayList<>();
        int i = 0;
        while (i < value.length()) {
            while (i < value.length() && Character.isWhitespace(value.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < value.length() && !Character.isWhitespace(value.charAt(i))) {
                i++;
            }
            if (i > start) {
                fields.add(value.substring(start, i));
            }
        }
        return fields.toArray(new String[0]);
    }
}
