package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import it.host.Tensors;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Holds a few pool buffers and answers commands on standard input while a test inspects it over JMX. */
public final class MBeanApp {

    public static void main(String[] args) throws Exception {
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            held.add(Tensors.allocate(i * 10_000));
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String command;
        while ((command = in.readLine()) != null) {
            switch (command) {
                case "api" -> RecordedWorkload.printApi();
                case "free" -> {
                    held.forEach(PoolsRuntime.current().allocator()::release);
                    held.clear();
                    System.out.println("freed");
                }
                case "quit" -> {
                    return;
                }
                default -> System.out.println("unknown " + command);
            }
            System.out.println("done");
            System.out.flush();
        }
    }
}
