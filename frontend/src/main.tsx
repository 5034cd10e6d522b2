import { render } from 'preact';
import { Api } from './api/client';
import { pickStream } from './api/stream';
import { Actions } from './state/actions';
import { App } from './ui/App';
import { ActionsContext } from './ui/hooks';
import './styles.css';
import './plans.css';

const actions = new Actions(new Api(), pickStream());
actions.start();

render(
  <ActionsContext.Provider value={actions}>
    <App />
  </ActionsContext.Provider>,
  document.getElementById('app')!,
);
