package io.perfpin.agent.apps;

import io.perfpin.annotations.Counted;
import io.perfpin.annotations.Pinned;

/** A task its annotations pin to CPU 1 and count with the sched preset, from the first instruction of run(). */
@Pinned("1")
@Counted("sched")
final class PinnedToucher extends AgentTestApp.Toucher {
    PinnedToucher(int pages) {
        super(pages);
    }

    @Override
    public void run() {
        super.run();
    }
}
