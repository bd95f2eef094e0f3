import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarm,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { BREACH_CHECK_DIMENSIONS, BREACH_CHECK_UNAVAILABLE_METRIC, FAILED_OUTCOME, REQUESTS_METRIC } from '#platform/metrics';

/** The metrics the stage's access log yields (metric filters), in the stage's namespace, without dimensions. */
export const ACCESS_LOG_METRICS = {
  /** Every response the stage sent, whatever produced it: one access log line each. */
  responses: 'apiResponses',
  /** The responses whose final status was 5xx: a function's 500, a gateway response (re-coded or not), a timeout. */
  serverErrors: 'apiResponses5xx',
} as const;

/** The access log field the metric filters read: `$context.status`, written as a JSON number (lib/constructs/api.ts). */
export const ACCESS_LOG_STATUS_FIELD = '$.status';

export interface MonitoringProps {
  readonly api: RestApi;
  /**
   * The stage's access log group, one JSON line per response with the final status as a number
   * (`status`): the server-error rate counts what clients received from it.
   */
  readonly accessLogs: ILogGroup;
  /** The API's stage name (API Gateway metrics are per API name and stage). */
  readonly stageName: string;
  /** The handlers by operation name. */
  readonly functions: Readonly<Record<string, IFunction>>;
  /**
   * Where alarms send ALARM and OK notifications.
   * @default - no notification; the alarms show on the dashboard and in the console
   */
  readonly alarmTopic?: ITopic;
  /**
   * Server-error rate, in percent of requests over 5 minutes, above which the API alarms.
   * @default 1
   */
  readonly serverErrorRatePercent?: number;
  /**
   * Fewer requests than this in 5 minutes never count as an error-rate breach (one failure in three
   * requests is noise, not an incident).
   * @default 20
   */
  readonly minimumRequestsForRate?: number;
  /** CloudWatch namespace of the functions' business metrics (`requests` by `operation` and `outcome`). */
  readonly metricsNamespace: string;
  /**
   * Each operation's p99 function duration (ms) above which its latency alarm fires, when it stays
   * above for 15 minutes.
   * @default 1000
   */
  readonly latencyP99ThresholdMs?: number;
  /**
   * The stage's WAF web ACL, for a dashboard widget of what each rule blocked.
   * @default - no WAF widget
   */
  readonly webAcl?: { readonly name: string; readonly ruleMetricNames: Readonly<Record<string, string>> };
  /**
   * The stage's online password check is on: alarm when it keeps failing (passwords then meet the offline list only).
   * @default false
   */
  readonly breachCheckAlarm?: boolean;
}

/**
 * Alarms on the rate of 5xx responses clients received (from the access log), throttles, function
 * errors, any request a function answered with 500, and each operation's p99 latency; one small dashboard.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];
  /** The stage-wide alarms a bad release of an API function trips: the 5xx rate clients received, and the functions' 500s. */
  readonly releaseAlarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  /** What the dashboard's alarm widget lists: these alarms and every one shown with {@link showAlarms}. */
  private readonly shownAlarms: IAlarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const prefix = Stack.of(this).stackName;
    const period = Duration.minutes(5);
    const apiDimensions = { ApiName: props.api.restApiName, Stage: props.stageName };
    const apiMetric = (metricName: string, statistic: string) =>
      props.api.metric(metricName, { dimensionsMap: apiDimensions, statistic, period });

    const requests = apiMetric('Count', Stats.SAMPLE_COUNT);
    // API Gateway's own count, which misses every gateway response whose status the stack changed (the
    // INTEGRATION_FAILURE and INTEGRATION_TIMEOUT ones re-coded to 500): AWS counts those as 4XXError.
    const serverErrors = apiMetric('5XXError', Stats.SUM);
    const clientErrors = apiMetric('4XXError', Stats.SUM);
    const gatewayServerErrorRate = new MathExpression({
      expression: `IF(requests >= ${props.minimumRequestsForRate ?? 20}, 100 * gateway5xx / requests, 0)`,
      usingMetrics: { requests, gateway5xx: serverErrors },
      label: "API Gateway's 5XXError (%)",
      period,
    });

    // What clients received: every access log line counts once, by its final status, whatever produced it.
    const fromAccessLog = (id: string, metricName: string, atLeast: number) =>
      new MetricFilter(this, id, {
        logGroup: props.accessLogs,
        filterPattern: FilterPattern.numberValue(ACCESS_LOG_STATUS_FIELD, '>=', atLeast),
        metricNamespace: props.metricsNamespace,
        metricName,
        metricValue: '1',
        // Reported for every minute with traffic, so a quiet minute is a 0, not a gap.
        defaultValue: 0,
      }).metric({ statistic: Stats.SUM, period });
    const responses = fromAccessLog('Responses', ACCESS_LOG_METRICS.responses, 100);
    const responses5xx = fromAccessLog('ServerErrorResponses', ACCESS_LOG_METRICS.serverErrors, 500);
    const serverErrorRate = new MathExpression({
      expression: `IF(responses >= ${props.minimumRequestsForRate ?? 20}, 100 * responses5xx / responses, 0)`,
      usingMetrics: { responses, responses5xx },
      label: '5xx received by clients (%)',
      period,
    });

    const api5xxRate = this.addAlarm(
      new Alarm(this, 'Api5xxRate', {
        alarmName: `${prefix}-api-5xx-rate`,
        alarmDescription:
          "More than the allowed share of responses had a 5xx status, counted from the stage's access log: a function's 500, a gateway response (integration failure or timeout re-coded to 500), any other 5xx.",
        metric: serverErrorRate,
        threshold: props.serverErrorRatePercent ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );

    for (const [operation, fn] of Object.entries(props.functions)) {
      // The handlers turn every failure into a contract response, so any Lambda error is a crash,
      // a timeout or an out-of-memory: always worth a look.
      this.addAlarm(
        new Alarm(this, `${operation}Errors`, {
          alarmName: `${prefix}-${operation}-errors`,
          alarmDescription: `${operation} failed outside its error handling (crash, timeout or out of memory).`,
          metric: fn.metricErrors({ period, statistic: Stats.SUM }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        props.alarmTopic,
      );
      // Lambda throttles mean the account's concurrency ran out: callers got 500s for it.
      this.addAlarm(
        new Alarm(this, `${operation}Throttles`, {
          alarmName: `${prefix}-${operation}-throttles`,
          alarmDescription: `${operation} invocations were throttled by Lambda (account or function concurrency exhausted).`,
          metric: fn.metricThrottles({ period, statistic: Stats.SUM }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        props.alarmTopic,
      );
    }

    if (props.breachCheckAlarm) {
      this.addAlarm(
        new Alarm(this, 'BreachCheckUnavailable', {
          alarmName: `${prefix}-breach-check-unavailable`,
          alarmDescription:
            'The online password check (Pwned Passwords) failed or timed out in each of the last 5 minutes: passwords meet the offline list only (fail-open).',
          metric: new Metric({
            namespace: props.metricsNamespace,
            metricName: BREACH_CHECK_UNAVAILABLE_METRIC,
            dimensionsMap: { ...BREACH_CHECK_DIMENSIONS },
            statistic: Stats.SUM,
            period: Duration.minutes(1),
          }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 5,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        props.alarmTopic,
      );
    }

    // The functions answer every failure with a contract 500, so Lambda's Errors stays 0 when, say, a
    // permission or the table is gone: their own counter is what sees a silent outage.
    const minute = Duration.minutes(1);
    const requestsBy = (operation: string, outcome: string) =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName: REQUESTS_METRIC,
        dimensionsMap: { operation, outcome },
        statistic: Stats.SUM,
        period: minute,
      });
    const operations = Object.keys(props.functions);
    const functionFailures = new MathExpression({
      expression: operations.map((_, i) => `FILL(failed${i}, 0)`).join(' + '),
      usingMetrics: Object.fromEntries(operations.map((operation, i) => [`failed${i}`, requestsBy(operation, FAILED_OUTCOME)])),
      label: 'requests answered 500 by a function',
      period: minute,
    });
    const functionFailuresAlarm = this.addAlarm(
      new Alarm(this, 'FunctionFailures', {
        alarmName: `${prefix}-function-500s`,
        alarmDescription: 'A function answered a request with 500 (storage failure, missing permission, timeout): the first one alarms.',
        metric: functionFailures,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );
    this.releaseAlarms.push(api5xxRate, functionFailuresAlarm);

    // The 5xx rate counts access log lines: if API Gateway stops writing them, it sees nothing. API
    // Gateway's own request count against what the access log group received says so.
    const logEvents = new Metric({
      namespace: 'AWS/Logs',
      metricName: 'IncomingLogEvents',
      dimensionsMap: { LogGroupName: props.accessLogs.logGroupName },
      statistic: Stats.SUM,
      period,
    });
    this.addAlarm(
      new Alarm(this, 'AccessLogSilent', {
        alarmName: `${prefix}-access-log-silent`,
        alarmDescription:
          "The stage served requests (API Gateway's Count) but its access log group received no log event, for 15 minutes: the 5xx rate, which counts access log lines, is blind meanwhile.",
        metric: new MathExpression({
          expression: 'IF(FILL(requests, 0) >= 1 AND FILL(logEvents, 0) == 0, 1, 0)',
          usingMetrics: { requests: requests.with({ statistic: Stats.SUM }), logEvents },
          label: 'requests served without an access log line',
          period,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      props.alarmTopic,
    );

    for (const [operation, fn] of Object.entries(props.functions)) {
      this.addAlarm(
        new Alarm(this, `${operation}LatencyP99`, {
          alarmName: `${prefix}-${operation}-p99-latency`,
          alarmDescription: `${operation}: p99 function duration above the threshold for 15 minutes.`,
          metric: fn.metricDuration({ period, statistic: Stats.p(99) }),
          threshold: props.latencyP99ThresholdMs ?? 1000,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        props.alarmTopic,
      );
    }

    const functions = Object.entries(props.functions);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      // Dashboards are global to the account (alarms are regional): the region keeps two regions' stages apart.
      dashboardName: `${prefix}-${Stack.of(this).region}`,
      defaultInterval: Duration.hours(6),
    });
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Requests and errors',
        left: [
          requests.with({ label: 'requests', statistic: Stats.SUM }),
          clientErrors.with({ label: "4XX (API Gateway's, re-coded gateway responses included)" }),
          serverErrors.with({ label: "5XX (API Gateway's)" }),
          responses5xx.with({ label: '5xx received by clients (access log)' }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Latency (ms)',
        left: [apiMetric('Latency', Stats.p(50)).with({ label: 'p50' }), apiMetric('Latency', Stats.p(99)).with({ label: 'p99' })],
        width: 8,
      }),
      new GraphWidget({ title: '5xx rate (%)', left: [serverErrorRate, gatewayServerErrorRate], width: 8 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        left: functions.map(([operation, fn]) => fn.metricDuration({ period, statistic: Stats.p(99), label: operation })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function errors and throttles',
        left: functions.flatMap(([operation, fn]) => [
          fn.metricErrors({ period, statistic: Stats.SUM, label: `${operation} errors` }),
          fn.metricThrottles({ period, statistic: Stats.SUM, label: `${operation} throttles` }),
        ]),
        width: 8,
      }),
      // The list is read when the dashboard is rendered, so alarms shown later are on it too.
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.shownAlarms, width: 8, height: 6 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Requests by operation and outcome',
        left: [
          new MathExpression({
            expression: `SEARCH('{${props.metricsNamespace},operation,outcome} MetricName="${REQUESTS_METRIC}"', 'Sum', 300)`,
            label: '',
            period,
          }),
        ],
        width: 8,
      }),
      new GraphWidget({ title: 'Requests answered 500 by a function', left: [functionFailures], width: 8 }),
      ...(props.webAcl ? [this.wafWidget(props.webAcl, period)] : []),
    );
  }

  /** What each WAF rule blocked, beside what the web ACL let through. */
  private wafWidget(webAcl: NonNullable<MonitoringProps['webAcl']>, period: Duration): GraphWidget {
    const region = Stack.of(this).region;
    const waf = (metricName: string, rule: string, label: string) =>
      new Metric({
        namespace: 'AWS/WAFV2',
        metricName,
        dimensionsMap: { WebACL: webAcl.name, Rule: rule, Region: region },
        statistic: Stats.SUM,
        period,
        label,
      });
    return new GraphWidget({
      title: 'Edge (WAF): allowed and blocked requests',
      left: [
        waf('AllowedRequests', 'ALL', 'allowed'),
        ...Object.entries(webAcl.ruleMetricNames).map(([rule, metricName]) => waf('BlockedRequests', metricName, `blocked: ${rule}`)),
      ],
      width: 8,
    });
  }

  /** Lists alarms made elsewhere in the stack (the lifecycle events') on the dashboard's alarm widget. */
  showAlarms(...alarms: IAlarm[]): void {
    this.shownAlarms.push(...alarms);
  }

  private addAlarm(alarm: Alarm, topic: ITopic | undefined): Alarm {
    this.alarms.push(notifying(alarm, topic));
    this.shownAlarms.push(alarm);
    return alarm;
  }
}

/** The alarm, sending its ALARM and OK transitions to `topic` when there is one. */
export function notifying(alarm: Alarm, topic: ITopic | undefined): Alarm {
  if (topic) {
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
  }
  return alarm;
}
