package io.perfpin.nativeio;

class JnaContractTest extends SyscallsContract {
    @Override
    Backend backend() {
        return Backend.JNA;
    }
}
