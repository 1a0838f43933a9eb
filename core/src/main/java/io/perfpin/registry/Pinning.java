package io.perfpin.registry;

import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuSet;

/** A pin perfpin gave a thread: where it may run now, and the affinity it had before, to restore. */
final class Pinning {
    final CpuSet originalCpus;
    final CpuAssignment assignment;

    Pinning(CpuSet originalCpus, CpuAssignment assignment) {
        this.originalCpus = originalCpus;
        this.assignment = assignment;
    }
}
