package dev.pools.it.apps;

import com.sun.tools.attach.VirtualMachine;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A host class loaded three times: by two class loaders whose parent is the platform loader, as
 * plugin and isolation loaders do, which never see the application class path nor the agent on it;
 * and by one that delegates to the application's. The application allocates through each and says how many of
 * its buffers the pools served after each. With {@code attach <jar> <layout>} the application
 * attaches the agent itself first.
 */
public final class IsolatedHost {

    private static final List<ByteBuffer> HELD = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("attach")) {
            VirtualMachine vm =
                    VirtualMachine.attach(String.valueOf(ProcessHandle.current().pid()));
            vm.loadAgent(args[1], args[2]);
            vm.detach();
        }
        URL[] classes = {
            IsolatedHost.class.getProtectionDomain().getCodeSource().getLocation()
        };
        try (URLClassLoader isolated = new URLClassLoader(classes, ClassLoader.getPlatformClassLoader());
                URLClassLoader another = new URLClassLoader(classes, ClassLoader.getPlatformClassLoader());
                URLClassLoader delegating = new URLClassLoader(classes, IsolatedHost.class.getClassLoader())) {
            System.out.println("isolated: allocated " + allocate(isolated) + ", pooled " + pooled());
            System.out.println("another isolated: allocated " + allocate(another) + ", pooled " + pooled());
            System.out.println("delegating: allocated " + allocate(delegating) + ", pooled " + pooled());
        }
    }

    private static int allocate(ClassLoader loader) throws ReflectiveOperationException {
        Method allocate = Class.forName("it.host.Tensors", true, loader).getMethod("allocate", int.class);
        ByteBuffer b = (ByteBuffer) allocate.invoke(null, 1000);
        HELD.add(b);
        return b.capacity();
    }

    /** By reflection: this class is linked before a late attach puts the agent on the class path. */
    private static Object pooled() throws ReflectiveOperationException {
        Object usage =
                Class.forName("dev.pools.api.MemoryPools").getMethod("usage").invoke(null);
        return usage.getClass().getMethod("numberAllocs").invoke(usage);
    }
}
