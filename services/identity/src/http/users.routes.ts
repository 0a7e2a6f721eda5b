import { Router } from 'express';
import { initUserBodySchema, updateProfileBodySchema } from '@htm/contracts';
import { callerOf, parseOrThrow } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { issueAccessToken } from '../domain/sessions.js';
import { toUserDto } from './user.view.js';
import { chooseRole, getUser, updateProfile } from '../domain/users.js';

export function userRoutes(deps: IdentityDeps): Router {
  const r = Router();
  const { authenticate } = deps.auth;

  r.get('/api/me', authenticate, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(toUserDto(await getUser(deps, callerOf(req).id), deps.config.TESTER_STRIKE_LIMIT));
  });

  r.post('/api/users/init', authenticate, async (req, res) => {
    const body = parseOrThrow(initUserBodySchema, req.body ?? {});
    const caller = callerOf(req);
    const user = await chooseRole(deps, caller.id, body);
    res.json({ user: toUserDto(user, deps.config.TESTER_STRIKE_LIMIT), access_token: await issueAccessToken(deps, user, caller.sid) });
  });

  r.patch('/api/users/profile', authenticate, async (req, res) => {
    const body = parseOrThrow(updateProfileBodySchema, req.body ?? {});
    const caller = callerOf(req);
    const user = await updateProfile(deps, caller.id, body);
    res.json({ user: toUserDto(user, deps.config.TESTER_STRIKE_LIMIT), access_token: await issueAccessToken(deps, user, caller.sid) });
  });

  return r;
}
