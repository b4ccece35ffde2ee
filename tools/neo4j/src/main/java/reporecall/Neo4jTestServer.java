package reporecall;

import java.nio.file.Path;
import java.time.Duration;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * A real Neo4j (embedded, community edition) with only the Bolt connector, on 127.0.0.1, auth off.
 *
 * <p>Usage: {@code Neo4jTestServer HOME_DIR PORT}. Prints {@code READY bolt://127.0.0.1:PORT} once the
 * default database answers, then serves until stdin closes or the process is terminated; either way it
 * shuts the database down cleanly. For tests only: never listens on anything but loopback.
 */
public final class Neo4jTestServer {
    private Neo4jTestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Neo4jTestServer HOME_DIR PORT");
            System.exit(2);
        }
        Path home = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 128L * 1024 * 1024)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        db.executeTransactionally("RETURN 1");
        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();
        // Serve until the parent goes away (stdin closes) or sends SIGTERM (the shutdown hook runs).
        while (System.in.read() != -1) {
            // ignore input
        }
        System.exit(0);
    }
}
