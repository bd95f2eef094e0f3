#!/usr/bin/env node
import { buildApp } from '../lib/app';

// Stage and overrides come from context: `cdk synth -c stage=prod -c throttleRateLimit=200`.
buildApp().app.synth();
