import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to 127.0.0.1 only. Its own main class listens on every interface and has
 * no option for the address, so this builds the server from the same command-line arguments,
 * sets the one connector's host, then starts it. It prints one line once the port is bound, and
 * exits when its standard input closes, so it never outlives the Node process that started it.
 * Telemetry is never configured here, so none is sent.
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    try {
      proxy.start();
    } catch (Exception error) {
      System.err.println("DynamoDB Local could not start: " + error.getMessage());
      System.exit(2);
    }
    System.out.println("LoopbackDynamoDbLocal listening");
    System.out.flush();
    while (System.in.read() != -1) {
      // Nothing is ever sent; end of input means the parent is gone.
    }
    System.exit(0);
  }
}
