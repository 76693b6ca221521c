import express, { type RequestHandler } from 'express';
import { CONTROL_LOGIN_PATH } from '../../contracts/controlApi.ts';
import type { SwitchCheckResponse } from '../../contracts/profileViews.ts';
import { requireProfile } from '../profiles/configMutations.ts';
import { checkProfileSwitch } from './profileSwitch.ts';
import type { ControlDeps, ProxyControl } from './deps.ts';
import { ApiError, apiErrorHandler } from './http.ts';
import { LiveHub } from './liveHub.ts';
import { ModelCatalog } from './modelCatalog.ts';
import { agentSessionRoutes } from './routes/agentSessionRoutes.ts';
import { clientRoutes } from './routes/clientRoutes.ts';
import { connectRoutes } from './routes/connectRoutes.ts';
import { exportRoutes } from './routes/exportRoutes.ts';
import { traceExportRoutes } from './routes/traceExportRoutes.ts';
import { memoryRoutes } from './routes/memoryRoutes.ts';
import { noticeRoutes } from './routes/noticeRoutes.ts';
import { profileRoutes } from './routes/profileRoutes.ts';
import { replayRoutes } from './routes/replayRoutes.ts';
import { requestRoutes } from './routes/requestRoutes.ts';
import { loginLinkRoutes, sessionRoutes } from './routes/sessionRoutes.ts';
import { sessionFile } from './sessionFile.ts';
import { ControlSessions, hashOf } from './sessions.ts';
import { buildStatus } from './status.ts';
import { createStaticUi, securityHeaders } from './staticUi.ts';
import type { ControlContext } from './context.ts';
import { sayUnexpectedErrorOnStderr } from '../../http/requestDispatch.ts';

/** Control API bodies are small JSON; a price import is the largest. */
const JSON_BODY_LIMIT = '6mb';

export interface ControlApi {
  /** Mount at CONTROL_PREFIX (startServer's `controlRouter`). */
  router: express.Router;
  /** Call once startServer returned: the live feed follows its events, status reads its state. */
  attach(proxy: ProxyControl): void;
  /** `http://127.0.0.1:PORT/_airlock/login#code=…`: opens the window signed in, once, within two minutes. */
  createLoginUrl(): string;
  /** Whether `airlock window` can mint another link for this run: without a keychain it cannot read the control token. */
  linksFromCli(): boolean;
  /** GET /profiles/:id/switch-check without HTTP, for the tray (it has no window to ask from). */
  switchCheck(profileId: string): Promise<SwitchCheckResponse>;
  close(): void;
}

/**
 * The control API and the window under one router. Everything except the sign-in exchange and
 * the static page needs the control token (Bearer) or a session cookie; client tokens never work.
 */
export function createControlRouter(deps: ControlDeps): ControlApi {
  const nowMs = deps.nowMs ?? Date.now;
  const { commandHint } = deps;
  const runToken = typeof deps.controlToken === 'string' ? deps.controlToken : deps.controlToken.token;
  const sessions = new ControlSessions({
    controlToken: deps.controlToken,
    nowMs,
    ...(deps.sessionsFile ? { persistence: sessionFile(deps.sessionsFile, hashOf(runToken)) } : {}),
  });
  let proxy: ProxyControl | null = null;
  let detach: (() => void) | null = null;
  const hub: LiveHub = new LiveHub({
    status: () => context.status(),
    knownSecrets: deps.knownSecrets,
  });
  // The log reads an ended request's summary from its bodies on its own thread; the live rows get it from there.
  const stopSummaries = deps.log.onRowSummaries((summaries) => hub.summariesWritten(summaries));
  // A hand edit of airlock.json that does not validate: the window's alarm comes and goes with it.
  const stopFileProblems = deps.config.onProblemChange(() => hub.statusChanged());
  // The active profile switched from the tray, the CLI or a hand edit, not by a route: the window's
  // status bar named the old profile until a request started or ended.
  const stopConfigChanges = deps.config.onChange(() => hub.statusChanged());
  // A keychain read (one that had hung, at last): the keychain alarm and the keys' statuses may have changed.
  const stopKeyChanges = deps.keys.onChange(() => hub.statusChanged());
  // A problem reported or dismissed: the window's notices follow.
  const stopNotices = deps.notices?.onChange(() => hub.statusChanged());
  const context: ControlContext = {
    deps,
    hub,
    catalog: new ModelCatalog(),
    proxy: () => proxy,
    nowMs,
    status: () =>
      buildStatus({
        deps,
        proxy,
        keyRejectedProfiles: hub.keyRejectedProfiles(),
        quotaExhaustedProfiles: hub.quotaExhaustedProfiles(),
        nowMs: nowMs(),
      }),
  };

  const requireControlAuth: RequestHandler = (req, _res, next) => {
    if (sessions.isAuthorized(req.headers.authorization, req.headers.cookie)) {
      next();
      return;
    }
    next(
      new ApiError(
        'unauthorized',
        `This needs the Airlock control token: open the link \`${commandHint.runningCommand('serve')}\` printed, or use the desktop window.`,
      ),
    );
  };

  const createLoginUrl = (): string => {
    if (!proxy) throw new Error('createLoginUrl() needs attach() first: the URL names the port the proxy listens on');
    return `${proxy.url}${CONTROL_LOGIN_PATH}#code=${sessions.issueLoginCode()}`;
  };

  const api = express.Router();
  api.use(express.json({ limit: JSON_BODY_LIMIT }));
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(sessionRoutes(sessions, commandHint));
  api.use(requireControlAuth);
  api.use(loginLinkRoutes(createLoginUrl, sessions, commandHint));
  api.use(requestRoutes(context));
  api.use(replayRoutes(context));
  api.use(profileRoutes(context));
  api.use(clientRoutes(context));
  api.use(connectRoutes(context));
  api.use(exportRoutes(context));
  api.use(traceExportRoutes(context));
  api.use(memoryRoutes(context));
  api.use(noticeRoutes(context));
  api.use(agentSessionRoutes(context));
  api.use((_req, _res, next) => next(new ApiError('not_found', 'No such control API endpoint.')));
  api.use(apiErrorHandler(deps.reportUnexpectedError ?? sayUnexpectedErrorOnStderr, commandHint.command));

  const router = express.Router();
  router.use(securityHeaders);
  router.use('/api', api);
  router.use(createStaticUi(deps.uiDir));

  return {
    router,
    attach(proxyControl) {
      detach?.();
      proxy = proxyControl;
      detach = hub.attach(proxyControl.events);
    },
    createLoginUrl,
    linksFromCli: () => typeof deps.controlToken === 'string' || deps.controlToken.inKeychain,
    switchCheck(profileId) {
      const profile = requireProfile(deps.config.snapshot(), profileId);
      return checkProfileSwitch(deps, profile, proxy?.inFlightCount() ?? 0, nowMs());
    },
    close() {
      detach?.();
      detach = null;
      stopSummaries();
      stopFileProblems();
      stopConfigChanges();
      stopKeyChanges();
      stopNotices?.();
      hub.close();
    },
  };
}
