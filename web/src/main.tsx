import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles.css';

createRoot(document.getElementById('root')!, {
  // A screen's error boundary shows the error; the console need not repeat it as an error.
  onCaughtError: (error) => console.warn(error),
}).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
