package io.perfpin.nativeio;

class JffiContractTest extends SyscallsContract {
    @Override
    Backend backend() {
        return Backend.JFFI;
    }
}
