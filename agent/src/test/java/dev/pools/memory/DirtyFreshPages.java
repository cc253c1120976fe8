package dev.pools.memory;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fills every fresh page with {@link #FRESH} for the tests of a class, as memory the C heap
 * recycles can hold anything: a handed-out byte that missed its zeroing shows as that pattern.
 */
final class DirtyFreshPages implements BeforeAllCallback, AfterAllCallback {

    static final byte FRESH = (byte) 0xA5;

    @Override
    public void beforeAll(ExtensionContext context) {
        NativeAccess.fillFreshPages(FRESH & 0xFF);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        NativeAccess.fillFreshPages(-1);
    }
}
