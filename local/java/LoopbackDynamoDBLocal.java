// DynamoDB Local, listening on one address only (127.0.0.1 unless -Ddynamodb.local.host says otherwise).
//
// DynamoDB Local has no option for the address it binds: its Jetty server takes the port alone and listens on every
// interface. This launcher builds the server exactly as DynamoDB Local's own main does (ServerRunner, with the same
// command line), sets the host of its one connector before it starts, and starts it. Compiled at run time by
// local/loopback.py when a JDK is present; without one, local.dynamodb runs the jar as it is and says so.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public final class LoopbackDynamoDBLocal {
    private LoopbackDynamoDBLocal() {}

    public static void main(String[] args) throws Exception {
        String host = System.getProperty("dynamodb.local.host", "127.0.0.1");
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        Connector[] connectors = server.getConnectors();
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local's server has no connector to bind");
        }
        for (Connector connector : connectors) {
            ((ServerConnector) connector).setHost(host);
        }
        proxy.start();
    }
}
