import { Router } from 'express';
import { initUserBodySchema, updateProfileBodySchema } from '@htm/contracts';
import { callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { toUserDto } from './user.view.js';
import { chooseRole, getUser, updateProfile } from '../domain/users.js';

export function userRoutes(deps: IdentityDeps): Router {
  const r = catalogueRoutes('identity');
  const { authenticate } = deps.auth;

  r.get('/api/me', authenticate, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(toUserDto(await getUser(deps, callerOf(req).id), deps.config.TESTER_STRIKE_LIMIT));
  });

  r.post('/api/users/init', authenticate, async (req, res) => {
    const body = parseOrThrow(initUserBodySchema, req.body ?? {});
    const { user, accessToken } = await chooseRole(deps, callerOf(req), body);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ user: toUserDto(user, deps.config.TESTER_STRIKE_LIMIT), access_token: accessToken });
  });

  r.patch('/api/users/profile', authenticate, async (req, res) => {
    const body = parseOrThrow(updateProfileBodySchema, req.body ?? {});
    const { user, accessToken } = await updateProfile(deps, callerOf(req), body);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ user: toUserDto(user, deps.config.TESTER_STRIKE_LIMIT), access_token: accessToken });
  });

  return r.router;
}
